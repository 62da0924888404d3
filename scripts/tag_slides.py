"""Give the course notebooks their slide metadata: every cell its slide type, for RISE and the
reveal.js slides, and every lesson the live-slide settings of RISE.

Usage::

    python scripts/tag_slides.py                        # every lesson and solution notebook
    python scripts/tag_slides.py notebooks/13_*.ipynb   # some of them
    python scripts/tag_slides.py --check                # report, change nothing (exit 1 if untagged)

Rules (``metadata.slideshow.slide_type`` of each cell):

- ``"slide"`` for the title cell (cell 0) and every markdown cell that opens with a ``# `` or
  ``## `` heading: each section starts a new slide;
- ``"subslide"`` for a markdown cell that opens with a ``### `` heading;
- ``"-"`` for the set-up cell (the first code cell: imports and seeds): it stays on the slide
  it is in (the title slide), so that in the live slideshow it is the first code cell, selected
  when the slideshow opens: running the first slide's cell sets everything up, and a fresh
  kernel needs no step outside the slideshow (hidden as a skipped cell, it left every later
  cell failing with ``NameError``). The offline decks drop it (hidden code, no output);
- ``"-"`` (continue the current slide) for every other cell, except that an author's
  ``"subslide"`` (a long section split by hand), ``"fragment"``, ``"skip"`` (left out of the
  slides, kept in the lesson) or ``"notes"`` on such a cell is kept.

Cell tags the slide build reads (``metadata.tags``): ``slide-show-code`` shows a code cell's code
on the offline slides, where code is hidden by default (see ``notebooks/README.md``).
``python scripts/tag_slides.py --authored`` lists every authored choice by cell id, so that it can
be re-applied to another copy of the notebooks with ``--apply FILE``.

Live slides (notebook metadata ``rise``, on the lessons; the worked solutions are not
presented): jupyterlab-rise (the live slideshow, ``Alt+R`` in JupyterLab) merges its settings
from its defaults, the user's JupyterLab settings and then the notebook's top-level
``metadata.rise``. The course sets there (:data:`RISE_SETTINGS`; other keys an author added are
kept):

- ``theme: "white"``: reveal.js's white theme, whose fonts ship with the extension; the default
  ``"simple"`` theme imports Lato and News Cycle from ``fonts.googleapis.com`` (an offline
  classroom logs the failed requests);
- ``scroll: true``: a slide taller than the window scrolls, so a long output can be reached;
- ``start_slideshow_at: "beginning"``: the slideshow opens on the title slide, not on the cell
  that happens to be selected; the set-up cell is the first code cell it shows (on the title
  slide or its goals subslide), selected there by RISE's ``auto_select: "code"`` (its default),
  so that the lecturer's first run sets everything up;
- ``transition: "none"``: no sliding animation on a projector.

Font sizes are in ``notebooks/rise.css`` (jupyterlab-rise loads ``rise.css`` from the notebook's
folder).

The script is idempotent and touches nothing but that metadata: sources, outputs, execution
counts and every other key stay as they are, and a notebook that already follows the rules is
not rewritten at all.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, course_notebooks  # noqa: E402

KEPT_BY_AUTHOR = ("subslide", "fragment", "skip", "notes")  # choices the rules keep
SHOW_CODE_TAG = "slide-show-code"  # a code cell whose code is shown on the offline slides
RISE_SETTINGS = {
    "theme": "white",
    "scroll": True,
    "start_slideshow_at": "beginning",
    "transition": "none",
}

__all__ = [
    "RISE_SETTINGS",
    "SHOW_CODE_TAG",
    "apply_authored",
    "authored_choices",
    "configure_rise",
    "slide_type_for",
    "tag_notebook",
    "main",
]


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
        return "-"
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


def authored_choices(notebook) -> dict[str, dict]:
    """The author's slide choices the rules would not make, by cell id: a kept slide type
    (``"slide_type"``) and/or the ``slide-show-code`` tag (``"show_code": True``)."""
    setup_index = next(
        (i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"), None
    )
    choices: dict[str, dict] = {}
    for index, cell in enumerate(notebook.cells):
        choice = {}
        current = cell.metadata.get("slideshow", {}).get("slide_type")
        blank = nbformat.from_dict({**cell, "metadata": {}})
        if current in KEPT_BY_AUTHOR and slide_type_for(blank, index, setup_index) != current:
            choice["slide_type"] = current
        if SHOW_CODE_TAG in cell.metadata.get("tags", []):
            choice["show_code"] = True
        if choice:
            choices[cell.get("id", str(index))] = choice
    return choices


def apply_authored(notebook, choices: dict[str, dict]) -> list[str]:
    """Set the choices of :func:`authored_choices` on the cells with those ids (in place), then
    tag the rest by the rules; return the ids not found in ``notebook``."""
    cells = {cell.get("id"): cell for cell in notebook.cells}
    for cell_id, choice in choices.items():
        cell = cells.get(cell_id)
        if cell is None:
            continue
        if "slide_type" in choice:
            cell.metadata["slideshow"] = {
                **cell.metadata.get("slideshow", {}),
                "slide_type": choice["slide_type"],
            }
        tags = cell.metadata.get("tags", [])
        if choice.get("show_code") and SHOW_CODE_TAG not in tags:
            cell.metadata["tags"] = [*tags, SHOW_CODE_TAG]
    tag_notebook(notebook)
    return [cell_id for cell_id in choices if cell_id not in cells]


def configure_rise(notebook) -> bool:
    """Set the course's ``metadata.rise`` keys (others an author added are kept); True if changed."""
    metadata = notebook.setdefault("metadata", {})
    current = metadata.get("rise")
    wanted = {**(current or {}), **RISE_SETTINGS}
    if current == wanted:
        return False
    metadata["rise"] = wanted
    return True


def _is_lesson(path: Path) -> bool:
    """A lesson is presented live; a worked solution (``notebooks/solutions/``) is not."""
    return path.parent.name != "solutions"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument(
        "--check",
        action="store_true",
        help="change nothing; exit 1 if a notebook does not follow the rules",
    )
    parser.add_argument(
        "--authored",
        action="store_true",
        help="print the authors' choices (subslides, skips, slide-show-code) as JSON",
    )
    parser.add_argument(
        "--apply",
        type=Path,
        metavar="FILE",
        help="set the choices of FILE (JSON from --authored), then tag by the rules",
    )
    args = parser.parse_args(argv)

    paths = [p.resolve() for p in args.notebooks] or course_notebooks()
    names = [p.relative_to(ROOT).as_posix() if p.is_relative_to(ROOT) else str(p) for p in paths]
    if args.authored:
        every = {
            name: authored_choices(nbformat.read(path, as_version=4))
            for name, path in zip(names, paths, strict=True)
        }
        print(json.dumps({name: c for name, c in every.items() if c}, indent=1))
        return 0
    wanted = json.loads(args.apply.read_text(encoding="utf-8")) if args.apply else {}
    untagged = []
    for path, name in zip(paths, names, strict=True):
        notebook = nbformat.read(path, as_version=4)
        before = copy.deepcopy(notebook)
        if name in wanted:
            missing = apply_authored(notebook, wanted[name])
            if missing:
                print(f"{name}: no cell with id {missing}; those choices are not applied")
        tag_notebook(notebook)
        changed = sum(old != new for old, new in zip(before.cells, notebook.cells, strict=True))
        rise = _is_lesson(path) and configure_rise(notebook)
        if changed or rise:
            untagged.append(str(name))
            if not args.check:
                nbformat.write(notebook, path)
        done = []
        if changed:
            done.append(f"{'would change' if args.check else 'changed'} {changed} cell(s)")
        if rise:
            done.append(f"{'would set' if args.check else 'set'} metadata.rise")
        print(f"{name}: {', '.join(done) or 'already tagged'}")
    if args.check and untagged:
        print("not tagged: " + ", ".join(untagged) + " (run scripts/tag_slides.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
