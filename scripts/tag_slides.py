"""Give every cell of the course notebooks its slide type, for RISE and the reveal.js slides.

Usage::

    python scripts/tag_slides.py                        # every lesson and solution notebook
    python scripts/tag_slides.py notebooks/13_*.ipynb   # some of them
    python scripts/tag_slides.py --check                # report, change nothing (exit 1 if untagged)

Rules (``metadata.slideshow.slide_type`` of each cell):

- ``"slide"`` for the title cell (cell 0) and every markdown cell that opens with a ``# `` or
  ``## `` heading: each section starts a new slide;
- ``"subslide"`` for a markdown cell that opens with a ``### `` heading;
- ``"skip"`` for the set-up cell (the first code cell: imports and seeds, nothing to present);
- ``"-"`` (continue the current slide) for every other cell, except that an author's
  ``"fragment"`` or ``"notes"`` on such a cell is kept.

The script is idempotent and touches nothing but that metadata: sources, outputs, execution
counts and every other key stay as they are, and a notebook that already follows the rules is
not rewritten at all.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
KEPT_BY_AUTHOR = ("fragment", "notes")  # presenter choices the rules do not override

__all__ = ["course_notebooks", "slide_type_for", "tag_notebook", "main"]


def course_notebooks(root: Path = ROOT) -> list[Path]:
    """Every notebook of the course: the lessons in order, then the worked solutions."""
    lessons = sorted((root / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    solutions = sorted((root / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb"))
    return lessons + solutions


def _first_line(cell) -> str:
    for line in cell.source.splitlines():
        if line.strip():
            return line.lstrip()
    return ""


def slide_type_for(cell, index: int, setup_index: int | None) -> str:
    """The slide type the rules give cell number ``index`` (``setup_index``: the set-up cell)."""
    if index == 0:
        return "slide"
    if index == setup_index:
        return "skip"
    if cell.cell_type == "markdown":
        first = _first_line(cell)
        if first.startswith(("# ", "## ")):
            return "slide"
        if first.startswith("### "):
            return "subslide"
    current = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
    return current if current in KEPT_BY_AUTHOR else "-"


def tag_notebook(notebook) -> int:
    """Set the slide type of every cell of ``notebook`` in place; return how many changed."""
    setup_index = next(
        (i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"), None
    )
    changed = 0
    for index, cell in enumerate(notebook.cells):
        wanted = slide_type_for(cell, index, setup_index)
        slideshow = cell.metadata.get("slideshow", {})
        if slideshow.get("slide_type") != wanted:
            cell.metadata["slideshow"] = {**slideshow, "slide_type": wanted}
            changed += 1
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 if a notebook does not follow the rules",
    )
    args = parser.parse_args(argv)

    paths = [p.resolve() for p in args.notebooks] or course_notebooks()
    untagged = []
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        changed = tag_notebook(notebook)
        name = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        if changed:
            untagged.append(str(name))
            if not args.check:
                nbformat.write(notebook, path)
        verb = "would change" if args.check else "changed"
        print(f"{name}: {verb} {changed} cell(s)" if changed else f"{name}: already tagged")
    if args.check and untagged:
        print("not tagged: " + ", ".join(untagged) + " (run scripts/tag_slides.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
