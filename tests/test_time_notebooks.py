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
# Lesson 12 on its new task (issue 24) measured 52-61 s on an idle 2-core machine: over budget
# until its training or evaluation is trimmed. Strict: this fails as soon as it fits again.
# A lesson over its budget is listed here, with its issue, as a strict xfail (none today).
OVER_BUDGET: dict[str, str] = {}


@pytest.mark.parametrize(
    "path",
    [
        pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=OVER_BUDGET[p.stem]))
        if p.stem in OVER_BUDGET
        else p
        for p in LESSONS
    ],
    ids=lambda p: p.stem,
)
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


# --- study times (issue 27): prose 120 words/min, code 8 lines/min, 10 min per exercise -------

import study_time as st  # noqa: E402


def lesson_with_parts() -> nbformat.NotebookNode:
    """256 core words + 16 core code lines, 2 exercises, 144 optional words + 8 optional lines."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    words = " ".join(["word"] * 107)  # + 3 tokens of "# A lesson", 10 of the run time: 120
    cells = [
        md(f"# A lesson\n\n{words}\n\n**Estimated run time:** about 5 s on a laptop CPU."),
        code("\n".join(f"x{i} = {i}" for i in range(8)) + "\n\n"),  # 8 lines; blank ones skipped
        md("## Section\n\n### A check\n\n" + " ".join(["w"] * 115)),  # 120 tokens with headings
        code("\n".join(f"y{i} = {i}" for i in range(8))),
        md("## Summary\n\n- " + " ".join(["s"] * 9)),  # 12 tokens of core
        md("## Exercises\n\n**1. Compute.** " + " ".join(["e"] * 500)),
        code("# your answer here\n" * 40),
        md("**2. Implement.** do it\n\n- **Not an exercise:** a bullet\n\nA **3. in a line**"),
        md("## Going deeper (optional): a digression\n\n" + " ".join(["g"] * 114)),  # 120
        md("### More of it\n\nno heading of its own ends the optional part"),  # 13 tokens
        code("\n".join(f"z{i} = {i}" for i in range(8))),
        md("## Another digression\n\nstill optional: only Exercises or Next end it"),  # 11
        md("**Next:** [the next lesson](02_next.ipynb)"),  # 4 tokens of core
    ]
    return nbformat.v4.new_notebook(cells=cells)


def test_study_time_counts_each_part_by_the_rule():
    notebook = lesson_with_parts()
    assert st.cell_parts(notebook) == [
        *["core"] * 5,
        "exercises",
        "exercises",
        "exercises",
        *["optional"] * 4,
        "core",
    ]
    times = st.study_time(notebook)
    assert (times.words, times.code_lines, times.exercises) == (256, 16, 2)
    assert (times.optional_words, times.optional_code_lines) == (144, 8)
    assert times.core_minutes == pytest.approx(256 / 120 + 2)  # 4.13 min
    assert times.exercise_minutes == 20
    assert times.optional_minutes == pytest.approx(144 / 120 + 1)
    assert times.header_line() == (
        "**Study time:** about 5 min to read and run, about 25 min with the 2 exercises; "
        "the optional part (Going deeper) adds about 5 min."
    )
    assert times.readme_cell() == "5 / 25 min (+5 optional)"


def test_study_time_of_a_lesson_without_exercises_or_optional_part():
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(" ".join(["w"] * 1200)),  # 10 min
            nbformat.v4.new_code_cell("\n".join(["x = 1"] * 100)),  # 12.5 min
        ]
    )
    times = st.study_time(notebook)
    assert times.core_minutes == pytest.approx(22.5)
    assert times.header_line() == "**Study time:** about 25 min to read and run."
    assert times.readme_cell() == "25 / 25 min"


@pytest.mark.parametrize(
    ("minutes", "stated"), [(0, 5), (4.1, 5), (5.0, 5), (5.01, 10), (43.3, 45)]
)
def test_round_minutes(minutes, stated):
    assert st.round_minutes(minutes) == stated


def test_round_minutes_rejects_nonsense():
    with pytest.raises(ValueError, match="minutes"):
        st.round_minutes(float("nan"))


def test_write_study_times_inserts_then_replaces_without_touching_run_times(repo):
    root, first, second = repo
    with pytest.raises(ValueError, match="no 'study time' column"):
        tn.write_study_times([first, second], root / "README.md", root)
    assert (root / "README.md").read_text(encoding="utf-8") == MAP
    # a map with the column, rows still without it: the cell is inserted before the run time
    study_map = MAP.replace("| what you learn |", "| what you learn | study time |").replace(
        "|---|---|---|---|", "|---|---|---|---|---|"
    )
    (root / "README.md").write_text(study_map, encoding="utf-8")
    written = tn.write_study_times([first, second], root / "README.md", root)
    assert written[first] == "5 / 5 min"
    readme = (root / "README.md").read_text(encoding="utf-8")
    assert "| 01 | [first](notebooks/01_first.ipynb) | a thing | 5 / 5 min | about 5 s |" in readme
    assert tn.readme_seconds(readme) == {"01_first.ipynb": 5, "02_second.ipynb": 9}
    header = nbformat.read(second, as_version=4).cells[0].source
    assert header == (
        "# A lesson\n\n**Study time:** about 5 min to read and run.\n\n"
        "**Estimated run time:** about 9 s on a laptop CPU (it trains a model)."
    )
    # writing again changes nothing: the study line is not counted in the study time
    before = (first.read_bytes(), second.read_bytes(), readme)
    tn.write_study_times([first, second], root / "README.md", root)
    after = (first.read_bytes(), second.read_bytes(), (root / "README.md").read_text("utf-8"))
    assert after == before


def test_study_times_are_stated_and_lessons_fit_a_sitting():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for path in LESSONS:
        notebook = nbformat.read(path, as_version=4)
        times = st.study_time(notebook)
        assert times.header_line() in notebook.cells[0].source, f"{path.name}: stale study time"
        assert f"| {times.readme_cell()} | about " in readme, f"{path.name}: README study time"
    for number in ("01", "02", "03", "04", "05"):  # issue 27: one 45-minute sitting each
        (path,) = [p for p in LESSONS if p.name.startswith(number)]
        assert st.study_time(nbformat.read(path, as_version=4)).core_minutes <= 45, path.name
