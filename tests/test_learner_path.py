"""A learner's path through the course (issue 41): every key result of lessons 05 on is met
with a prediction first, as lessons 01-04 do.

A prediction prompt is a paragraph opening with ``**Predict first:**`` that asks a question,
in a markdown cell of the lesson's core, and the cell right after it is the code cell whose
output answers it: the learner commits to a guess, then runs the cell.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import time_notebooks as tn  # noqa: E402
from _course import lessons  # noqa: E402

LESSONS = lessons()
PROMPT = "**Predict first:**"
MIN_PROMPTS = 3  # per lesson from 05 on: its key results (each lesson has 3 to 6)
_PARAGRAPH = re.compile(r"\*\*Predict first:\*\*(.*?)(?:\n\s*\n|\Z)", re.S)


def prompts(notebook: nbformat.NotebookNode) -> list[tuple[int, str, str]]:
    """(cell index, part, the prompt's paragraph) of every prediction prompt."""
    parts = tn.cell_parts(notebook)
    found = []
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "markdown":
            for paragraph in _PARAGRAPH.findall(cell.source):
                found.append((index, parts[index], paragraph.strip()))
    return found


@pytest.mark.parametrize("lesson", LESSONS, ids=[x.stem for x in LESSONS])
def test_every_prediction_prompt_asks_and_the_next_cell_answers(lesson):
    notebook = nbformat.read(lesson.path(), as_version=4)
    for index, _, paragraph in prompts(notebook):
        assert "?" in paragraph, f"cell {index}: a prompt asks a question: {paragraph[:80]!r}"
        # an author's elaboration cell (slide type notes) reads as part of the prompt's cell
        after = [c for c in notebook.cells[index + 1 :] if not _is_author_note(c)]
        following = after[0] if after else None
        assert following is not None and following.cell_type == "code", (
            f"cell {index}: the cell after a prediction prompt runs the answer"
        )


def _is_author_note(cell) -> bool:
    kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
    return cell.cell_type == "markdown" and kind == "notes"


LATER = [x for x in LESSONS if int(x.stem[:2]) >= 5]


@pytest.mark.parametrize("lesson", LATER, ids=[x.stem for x in LATER])
def test_lessons_from_05_predict_before_their_key_results(lesson):
    notebook = nbformat.read(lesson.path(), as_version=4)
    core = [p for p in prompts(notebook) if p[1] == tn.CORE]
    assert len(core) >= MIN_PROMPTS, (
        f"{lesson.stem}: {len(core)} prediction prompts in the core, want >= {MIN_PROMPTS}"
    )


def test_the_prompt_pattern_finds_what_it_should():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    notebook = nbformat.v4.new_notebook(
        cells=[
            md("Text.\n\n**Predict first:** will it grow,\nor shrink?\n\nMore text."),
            code("print(1)"),
            md("## Going deeper (optional)\n\n**Predict first:** and here?"),
            code("print(2)"),
        ]
    )
    assert prompts(notebook) == [
        (0, "core", "will it grow,\nor shrink?"),
        (2, "optional", "and here?"),
    ]
