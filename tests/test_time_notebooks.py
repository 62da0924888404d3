"""Run times: the README course map and the notebooks' headers agree, and the script that writes
and checks them (scripts/time_notebooks.py) does what it says, on a temporary README/notebook."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import time_notebooks as tn  # noqa: E402
from _course import lesson_notebooks, solution_notebooks  # noqa: E402

LESSONS = lesson_notebooks()
SOLUTIONS = solution_notebooks()


def test_readme_course_map_and_notebook_headers_state_the_same_run_times():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = tn.readme_seconds(readme)
    assert sorted(table) == [p.name for p in LESSONS], "one course-map row per lesson"
    for path in LESSONS:
        stated = tn.header_seconds(nbformat.read(path, as_version=4))
        assert stated is not None and stated > 0, f"{path.name}: no run time in its header"
        assert table[path.name] == stated, (
            f"{path.name}: README {table[path.name]} s, header {stated} s"
        )
    for path in SOLUTIONS:
        assert tn.header_seconds(nbformat.read(path, as_version=4)), f"{path.name}: no run time"
    assert tn.disagreements(LESSONS + SOLUTIONS, readme) == []


# issue 11 item 8: every lesson in <= 30 s, the experiment lessons that train many models in
# <= 45 s.
@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.stem)
def test_lessons_state_run_times_within_the_live_budget(path):
    experiments = {  # train many models
        "12_length_extrapolation.ipynb",
        "14_positions_in_graphs_and_time.ipynb",
        "15_long_context.ipynb",
        "17_positions_in_production.ipynb",
    }
    stated = tn.header_seconds(nbformat.read(path, as_version=4))
    assert stated <= (45 if path.name in experiments else 30), f"{path.name}: {stated} s"


@pytest.mark.parametrize(
    ("seconds", "stated"),
    [(0.2, 1), (3.2, 4), (10.0, 10), (10.2, 15), (21, 25), (60, 60), (62, 70)],
)
def test_round_up(seconds, stated):
    assert tn.round_up(seconds) == stated


def test_round_up_rejects_nonsense():
    with pytest.raises(ValueError, match="seconds"):
        tn.round_up(-1.0)


def make_notebook(path: Path, seconds: int, tail: str = "") -> Path:
    header = f"# A lesson\n\n**Estimated run time:** about {seconds} s on a laptop CPU{tail}."
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell(header), nbformat.v4.new_code_cell("1 + 1")]
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


MAP = """# Course

| # | notebook | what you learn | run time on a laptop CPU |
|---|---|---|---|
| 01 | [first](notebooks/01_first.ipynb) | a thing | about 5 s |
| 02 | [second](notebooks/02_second.ipynb) | another | about 9 s |

Text after the table.
"""


@pytest.fixture
def repo(tmp_path):
    """A repository with a README course map and two lessons whose headers agree with it."""
    (tmp_path / "README.md").write_text(MAP, encoding="utf-8")
    first = make_notebook(tmp_path / "notebooks" / "01_first.ipynb", 5)
    second = make_notebook(tmp_path / "notebooks" / "02_second.ipynb", 9, " (it trains a model)")
    return tmp_path, first, second


def test_write_sets_both_places_from_one_measurement(repo):
    root, first, second = repo
    tn.write_times({first: 21.3, second: 3.2}, root / "README.md", root)
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert tn.readme_seconds(readme) == {"01_first.ipynb": 25, "02_second.ipynb": 4}
    assert "| 01 | [first](notebooks/01_first.ipynb) | a thing | about 25 s |" in readme
    assert readme.endswith("Text after the table.\n")
    assert tn.header_seconds(nbformat.read(first, as_version=4)) == 25
    header = nbformat.read(second, as_version=4).cells[0].source
    assert header.endswith("about 4 s on a laptop CPU (it trains a model).")
    assert tn.disagreements([first, second], readme, root) == []


def test_check_finds_disagreement_and_stale_times(repo):
    root, first, second = repo
    readme = root / "README.md"
    assert tn.check_times({first: 5.4, second: 8.0}, 0.5, readme, root) == []
    readme.write_text(MAP.replace("about 9 s", "about 12 s"), encoding="utf-8")
    problems = tn.check_times({first: 5.4, second: 8.0}, 0.5, readme, root)
    assert problems == ["02_second.ipynb: README says 12 s, the notebook's header 9 s"]
    readme.write_text(MAP, encoding="utf-8")
    problems = tn.check_times({first: 50.0}, 0.5, readme, root)
    assert len(problems) == 1 and "measured 50.0 s, the header says 5 s" in problems[0]


def test_disagreements_report_missing_rows_and_headers(repo):
    root, first, _ = repo
    third = make_notebook(root / "notebooks" / "03_third.ipynb", 7)
    bare = root / "notebooks" / "04_bare.ipynb"
    nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# x")]), bare)
    problems = tn.disagreements([first, third, bare], MAP, root)
    assert "README course map: no row for 03_third.ipynb" in problems
    assert any("no '**Estimated run time:** about N s' in cell 0" in p for p in problems)


def test_notebook_outside_the_repository(tmp_path, monkeypatch, capsys):
    # the real script on a notebook that is not in the repository: no crash, README untouched,
    # the header written from the measurement
    outside = make_notebook(tmp_path / "elsewhere" / "99_outside.ipynb", 3)
    readme_before = (ROOT / "README.md").read_bytes()
    monkeypatch.setattr(tn, "execute", lambda path, timeout, write: 12.5)
    assert tn.main([str(outside), "--no-tests", "--write"]) == 0
    assert tn.header_seconds(nbformat.read(outside, as_version=4)) == 15
    assert (ROOT / "README.md").read_bytes() == readme_before
    assert str(outside) in capsys.readouterr().out
    assert tn.main([str(outside), "--no-tests", "--check"]) == 0
    monkeypatch.setattr(tn, "execute", lambda path, timeout, write: 40.0)
    assert tn.main([str(outside), "--no-tests", "--check"]) == 1
    assert "measured 40.0 s, the header says 15 s" in capsys.readouterr().out
