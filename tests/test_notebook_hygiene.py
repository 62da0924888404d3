"""Checks on the committed notebooks that nbval does not make: how they were executed and saved.

nbval re-runs each notebook and compares outputs; these tests guard what it cannot see: that the
committed file was executed top to bottom in one fresh kernel, holds no errors, warnings or
machine-specific text (in any output field, tracebacks included), no HTML or JavaScript outputs
that the site and slides would copy verbatim, one nbval marker per cell, stays small, names a
portable kernel and is listed in the README.
"""

from __future__ import annotations

import json
import re
import socket
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from _course import lesson_notebooks, solution_notebooks  # noqa: E402

NOTEBOOKS = lesson_notebooks()
SOLUTIONS = solution_notebooks()
ALL = NOTEBOOKS + SOLUTIONS
MAX_BYTES = 2_000_000

_here = [str(ROOT), str(Path.home()), socket.gethostname()]
MACHINE_TEXT = re.compile(
    "|".join(
        [re.escape(h) for h in _here if len(h) > 3]
        + [
            r"site-packages",
            r"dist-packages",
            r"(?<![\w.])/(?:home|Users)/\w",  # home folders on Linux and macOS
            r"(?<![\w.])/root/",
            r"(?<![\w.])/tmp/",
            r"(?<![\w.])/var/folders/",  # macOS temporary folders
            r"(?<![\w])[A-Za-z]:[\\/](?:Users|Windows|Program|[A-Za-z0-9_.-]+[\\/])",  # C:\...
            r"0x[0-9a-f]{8,}",
        ]
    )
)

# Output types a committed notebook may hold. HTML and JavaScript are copied verbatim into the site
# and the slides, so none is allowed unless listed in ALLOWED_HTML as (notebook, cell index).
# text/markdown (notebook 12's generated results table) is parsed as markdown by the site, whose
# raw-HTML allow-list applies to it (tests/test_site.py probes a markdown output with a script).
ALLOWED_DATA = {
    "text/plain",
    "text/markdown",
    "image/png",
    "application/vnd.jupyter.widget-view+json",
}
ALLOWED_HTML: set[tuple[str, int]] = set()  # none today
# nbval's comment markers and the cell tags that mean the same; a cell carries at most one.
MARKERS = {
    "NBVAL_IGNORE_OUTPUT": "nbval-ignore-output",
    "NBVAL_SKIP": "nbval-skip",
    "NBVAL_RAISES_EXCEPTION": "raises-exception",
    "NBVAL_CHECK_OUTPUT": "nbval-check-output",
}


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    return "".join(cell.get("source", []))


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


def _strings(value) -> list[str]:
    """Every string inside an output (text, tracebacks, data, metadata), images left out."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [text for item in value for text in _strings(item)]
    if isinstance(value, dict):
        return [
            text
            for key, item in value.items()
            if not str(key).startswith("image/")  # base64 can spell anything
            for text in _strings(item)
        ]
    return []


def _ids(paths):
    return [str(p.relative_to(ROOT / "notebooks")) for p in paths]


def test_course_has_notebooks():
    assert len(NOTEBOOKS) >= 2, "expected the course notebooks under notebooks/"


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_executed_in_order_in_one_fresh_kernel(path):
    counts = [c.get("execution_count") for c in _load(path)["cells"] if c["cell_type"] == "code"]
    assert counts == list(range(1, len(counts) + 1)), (
        f"{path.name}: execution counts {counts}; re-run scripts/execute_notebooks.py"
    )


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_no_errors_warnings_or_machine_text(path):
    problems = []
    for index, cell in enumerate(_load(path)["cells"]):
        if cell["cell_type"] != "code":
            continue
        expected_error = "raises-exception" in _tags(cell) or "NBVAL_RAISES_EXCEPTION" in _source(
            cell
        )
        volatile = "nbval-ignore-output" in _tags(cell) or "NBVAL_IGNORE_OUTPUT" in _source(cell)
        for output in cell.get("outputs", []):
            if output["output_type"] == "error" and not expected_error:
                problems.append(f"cell {index}: error {output.get('ename')}")
            if output["output_type"] == "stream" and output["name"] == "stderr" and not volatile:
                problems.append(f"cell {index}: stderr {''.join(output['text'])[:80]!r}")
            for text in _strings(output):
                match = MACHINE_TEXT.search(text)
                if match:
                    problems.append(f"cell {index}: machine-specific text {match.group(0)!r}")
                    break
    assert not problems, f"{path.name}: " + "; ".join(problems)


def test_machine_text_pattern_catches_paths_and_spares_ordinary_text():
    caught = [
        '  File "/opt/venv/lib/python3.11/site-packages/torch/nn/modules/module.py", line 1',
        "/home/learner/course/notebooks/13_bugs_clinic.ipynb",
        "/Users/learner/course",
        "saved to /tmp/abc",
        r"C:\Users\learner\course",
        "D:/course/notebooks",
        str(ROOT / "helpers" / "attention.py"),
        "<matplotlib.lines.Line2D at 0x7f3a2b1c4d90>",
    ]
    spared = [
        "exact-match >= 99%: True",
        "ratio 1/home-made",  # no leading slash
        "shape (2, 64, 16); d_model/2 = 8",
        "Hint: use masked_fill(~mask, -inf).",
        "see notebooks/references.md",
    ]
    assert [text for text in caught if not MACHINE_TEXT.search(text)] == []
    assert [text for text in spared if MACHINE_TEXT.search(text)] == []


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_no_html_or_javascript_outputs(path):
    name = str(path.relative_to(ROOT / "notebooks"))
    problems = []
    for index, cell in enumerate(_load(path)["cells"]):
        for output in cell.get("outputs", []):
            for mime in output.get("data", {}):
                if mime in ALLOWED_DATA or (mime == "text/html" and (name, index) in ALLOWED_HTML):
                    continue
                problems.append(f"cell {index}: {mime}")
    assert not problems, f"{name}: outputs the site would copy verbatim: " + "; ".join(problems)


def figure_alt_problem(alt: object) -> str | None:
    """Why ``alt`` is not a usable text alternative for a figure, or None: a sentence or three
    (12 to 90 words) that says what the figure shows, never a file name or nbconvert's
    placeholder."""
    if not isinstance(alt, str) or not alt.strip():
        return "no metadata.alt"
    words = len(alt.split())
    if not 12 <= words <= 90:
        return f"{words} words (12 to 90 expected)"
    if re.search(r"\.(png|jpe?g|svg|gif)\b", alt, re.I) or "No description has been" in alt:
        return f"a file name or placeholder: {alt[:40]!r}"
    return None


def test_figure_alt_rule_catches_what_a_screen_reader_user_cannot_use():
    good = (
        "Heat map of the sinusoidal encoding, positions down and dimensions across: fast stripes "
        "on the left, slow colour changes on the right."
    )
    assert figure_alt_problem(good) is None
    assert figure_alt_problem(None) == "no metadata.alt"
    assert figure_alt_problem("   ") == "no metadata.alt"
    assert figure_alt_problem("A plot.").startswith("2 words")
    assert figure_alt_problem(good + " See figure_3.png for more of the same picture.")
    assert figure_alt_problem("No description has been provided for this image, " + good)


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_every_figure_has_a_text_alternative(path):
    # metadata.alt: read by nbconvert (offline decks); build_site passes it on to MyST-NB
    problems = []
    for index, cell in enumerate(_load(path)["cells"]):
        if any("image/png" in o.get("data", {}) for o in cell.get("outputs", [])):
            problem = figure_alt_problem(cell.get("metadata", {}).get("alt"))
            if problem:
                problems.append(f"cell {index} ({cell.get('id')}): {problem}")
    assert not problems, f"{path.name}: figures without a text alternative: " + "; ".join(problems)


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_one_nbval_marker_per_cell(path):
    # a comment marker and a tag on one cell make nbval warn "Overlapping options"
    problems = []
    for index, cell in enumerate(_load(path)["cells"]):
        if cell["cell_type"] != "code":
            continue
        lines = {line.strip() for line in _source(cell).splitlines()}
        markers = [m for m in MARKERS if f"# {m}" in lines] + sorted(
            _tags(cell) & set(MARKERS.values())
        )
        if len(markers) > 1:
            problems.append(f"cell {index}: {markers}")
    assert not problems, f"{path.name}: more than one nbval marker: " + "; ".join(problems)


@pytest.mark.parametrize("path", ALL, ids=_ids(ALL))
def test_small_file_and_portable_kernel(path):
    assert path.stat().st_size < MAX_BYTES, f"{path.name} is {path.stat().st_size / 1e6:.2f} MB"
    kernel = _load(path)["metadata"].get("kernelspec", {}).get("name")
    assert kernel == "python3", f"{path.name}: kernel {kernel!r}, expected 'python3'"


def test_every_notebook_is_listed_in_the_readme():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    missing = [p.name for p in ALL if p.name not in readme]
    assert not missing, f"not in README's course map or solutions table: {missing}"


def test_every_lesson_has_an_estimated_run_time():
    # in cell 0, or in the notes cells that continue it (a title cell split for the deck:
    # scripts/course.py, header_cells)
    for path in NOTEBOOKS:
        cells = _load(path)["cells"]
        header = [cells[0]]
        for cell in cells[1:]:
            kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
            if cell["cell_type"] != "markdown" or kind != "notes":
                break
            header.append(cell)
        first = "\n\n".join(_source(cell) for cell in header)
        assert re.search(r"[Rr]un time", first), f"{path.name}: no run-time estimate in cell 0"


def test_readme_sections_named_elsewhere_exist():
    # comments such as 'see README, "Supported systems"' must name a real heading
    headings = {
        line.lstrip("#").strip()
        for line in (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
        if line.startswith("#")
    }
    named = []
    for name in ("requirements.txt", "environment.yml", "pyproject.toml"):
        path = ROOT / name
        if path.exists():
            text = path.read_text(encoding="utf-8")
            named += [(name, s) for s in re.findall(r'README,? "([^"]+)"', text)]
    assert named, "expected at least one README section reference"
    missing = [(name, section) for name, section in named if section not in headings]
    assert not missing, f"README has no such section: {missing}"


def test_start_here_names_every_notebook_that_uses_the_widgets():
    start = _load(ROOT / "notebooks" / "00_start_here.ipynb")
    row = next(
        line
        for cell in start["cells"]
        if cell["cell_type"] == "markdown"
        for line in _source(cell).splitlines()
        if line.startswith("| `helpers.widgets`")
    )
    listed = {int(n) for n in re.findall(r"\b(\d\d)\b", row.split("|")[-2])}
    users = {
        int(path.name[:2])
        for path in NOTEBOOKS
        if "helpers.widgets"
        in "".join(_source(c) for c in _load(path)["cells"] if c["cell_type"] == "code")
    }
    assert users and users <= listed, f"00's tour lists {sorted(listed)}; used in {sorted(users)}"
