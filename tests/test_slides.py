"""Slide metadata: the tagging rules of scripts/tag_slides.py, and every notebook carries them."""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import tag_slides  # noqa: E402

NOTEBOOKS = tag_slides.course_notebooks(ROOT)


def _slide_types(notebook) -> list[str | None]:
    return [cell.metadata.get("slideshow", {}).get("slide_type") for cell in notebook.cells]


def _lesson() -> nbformat.NotebookNode:
    """A small notebook shaped like a lesson, with outputs and an author's fragment."""
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        new_md("# 99 · A lesson\n\nWhat you will learn. Estimated run time: 1 s."),
        new_code("import helpers\nhelpers.seed_everything(0)", execution_count=1),
        new_md("## First section\n\nA question."),
        new_code(
            "print(1 + 1)",
            execution_count=2,
            outputs=[nbformat.v4.new_output("stream", name="stdout", text="2\n")],
        ),
        new_md("\n### A detail\n\nMore."),
        new_md("Plain prose, not a heading: ## inside a line."),
        new_code("x = 3", execution_count=3),
        new_md("## Exercises"),
    ]
    cells[6].metadata["slideshow"] = {"slide_type": "fragment"}
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return notebook


def test_rules_give_each_cell_its_slide_type():
    notebook = _lesson()
    changed = tag_slides.tag_notebook(notebook)
    assert _slide_types(notebook) == [
        "slide",
        "skip",
        "slide",
        "-",
        "subslide",
        "-",
        "fragment",
        "slide",
    ]
    assert changed == 7  # every cell but the author's fragment


def test_tagging_changes_only_slide_metadata():
    notebook = _lesson()
    before = copy.deepcopy(notebook)
    tag_slides.tag_notebook(notebook)
    for old, new in zip(before.cells, notebook.cells, strict=True):
        assert new.source == old.source
        assert new.get("outputs") == old.get("outputs")
        assert new.get("execution_count") == old.get("execution_count")
        assert set(new.metadata) - {"slideshow"} == set(old.metadata) - {"slideshow"}


def test_a_wrong_slide_type_is_corrected_and_other_slideshow_keys_kept():
    notebook = _lesson()
    notebook.cells[2].metadata["slideshow"] = {"slide_type": "-", "data": {"x": "1"}}
    notebook.cells[3].metadata["slideshow"] = {"slide_type": "slide"}
    tag_slides.tag_notebook(notebook)
    assert notebook.cells[2].metadata["slideshow"] == {"slide_type": "slide", "data": {"x": "1"}}
    assert notebook.cells[3].metadata["slideshow"] == {"slide_type": "-"}


def test_script_is_idempotent_and_check_mode_writes_nothing(tmp_path, capsys):
    path = tmp_path / "99_lesson.ipynb"
    nbformat.write(_lesson(), path)
    untagged = path.read_bytes()

    assert tag_slides.main([str(path), "--check"]) == 1
    assert path.read_bytes() == untagged, "--check must not write"

    assert tag_slides.main([str(path)]) == 0
    tagged = path.read_bytes()
    assert tagged != untagged
    mtime = path.stat().st_mtime_ns

    assert tag_slides.main([str(path)]) == 0
    assert path.read_bytes() == tagged and path.stat().st_mtime_ns == mtime, "rewrote a tagged file"
    assert tag_slides.main([str(path), "--check"]) == 0
    assert "already tagged" in capsys.readouterr().out

    outputs = [c.get("outputs") for c in nbformat.read(path, as_version=4).cells]
    assert outputs[3][0]["text"] == "2\n"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_notebook_carries_slide_metadata(path):
    notebook = nbformat.read(path, as_version=4)
    missing = [i for i, t in enumerate(_slide_types(notebook)) if t is None]
    assert not missing, (
        f"{path.name}: cells {missing} have no slide type; run scripts/tag_slides.py"
    )
    assert tag_slides.tag_notebook(notebook) == 0, (
        f"{path.name}: slide types do not follow the rules; run scripts/tag_slides.py"
    )
