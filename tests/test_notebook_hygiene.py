"""Checks on the committed notebooks that nbval does not make: how they were executed and saved.

nbval re-runs each notebook and compares outputs; these tests guard what it cannot see: that the
committed file was executed top to bottom in one fresh kernel, holds no errors, warnings or
machine-specific text, stays small, names a portable kernel and is listed in the README.
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
SOLUTIONS = sorted((ROOT / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb"))
ALL = NOTEBOOKS + SOLUTIONS
MAX_BYTES = 2_000_000

_here = [str(ROOT), str(Path.home()), socket.gethostname()]
MACHINE_TEXT = re.compile(
    "|".join([re.escape(h) for h in _here if len(h) > 3] + [r"/tmp/", r"0x[0-9a-f]{8,}"])
)


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _source(cell: dict) -> str:
    return "".join(cell.get("source", []))


def _tags(cell: dict) -> set[str]:
    return set(cell.get("metadata", {}).get("tags", []))


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
            text = json.dumps(output.get("text", "")) + json.dumps(
                output.get("data", {}).get("text/plain", "")
            )
            match = MACHINE_TEXT.search(text)
            if match:
                problems.append(f"cell {index}: machine-specific text {match.group(0)!r}")
    assert not problems, f"{path.name}: " + "; ".join(problems)


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
    for path in NOTEBOOKS:
        first = _source(_load(path)["cells"][0])
        assert re.search(r"[Rr]un time", first), f"{path.name}: no run-time estimate in cell 0"
