"""How ``scripts/build_assignments.py`` finds a lesson's exercises when the author split an
exercise's paragraph for the slides (issue 42): the statement on the slide, the rest in a
markdown cell of slide type ``notes`` right after it. The notebook reads the two as one, so the
graded assignment must too: the whole question, and the right exercise number."""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import build_assignments  # noqa: E402


def _notes(source: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_markdown_cell(source)
    cell.metadata["slideshow"] = {"slide_type": "notes"}
    return cell


def _lesson() -> nbformat.NotebookNode:
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    return nbformat.v4.new_notebook(
        cells=[
            md("## Exercises\n\n1. **Explain.** Why is the sky blue?"),
            _notes("Say what scatters, and how much more at short wavelengths."),
            md("2. **Implement.** Write `my_sum(a, b)`."),
            _notes("It returns `a + b`, for numbers and arrays alike."),
            md("Worked solutions: [solutions/99.ipynb](solutions/99.ipynb)."),
            code("def my_sum(a, b):\n    raise NotImplementedError\n\n\ncheck_sum(my_sum)"),
        ]
    )


def test_a_split_exercise_is_found_whole_with_its_number():
    found = {e.name: e for e in build_assignments.find_exercises(_lesson())}
    written, implemented = found["written_1"], found["my_sum"]
    assert (written.number, implemented.number) == (1, 2)
    assert written.text.endswith("how much more at short wavelengths.")
    assert implemented.text.startswith("2. **Implement.**")
    assert implemented.text.endswith("for numbers and arrays alike.")
    assert "Worked solutions" not in implemented.text  # a plain cell is not the statement's
