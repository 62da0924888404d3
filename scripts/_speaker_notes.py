"""The lecturer's speaker notes of a deck (part of ``scripts/build_slides.py``, whose docstring
gives the notes file's convention): ``notebooks/lectures/NN_notes.md`` read into its ``## ``
blocks and ``### <cell id> · <label>`` sub-blocks, and merged into a lesson as reveal.js notes
cells, the section's notes on its first slide and each subslide's own on it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat

__all__ = [
    "SubslideNote",
    "continued_note",
    "merge_notes",
    "notes_file",
    "parse_notes",
    "read_notes",
    "read_subslide_notes",
    "speaker_note",
    "subslides",
]


# "### <cell id> · <label>": the notes of one subslide (see scripts/build_slides.py's docstring)
_SUBSLIDE = re.compile(r"### (\S+) · (.+)")
_MINUTES = re.compile(r"\*\*Minutes:\*\* ([1-9][0-9]*)")


@dataclass(frozen=True)
class SubslideNote:
    """The notes of one subslide: under which ``## `` block of the notes file it stands
    (``None``: before the first, i.e. the lesson's title slide), the id of the notebook cell
    that starts the subslide, the label after it (the subslide's ``### `` heading, or words
    for a person), its text (talking points and ``**Minutes:** N``) and those minutes."""

    section: str | None
    cell_id: str
    label: str
    text: str
    minutes: int | None


def parse_notes(text: str) -> tuple[dict[str, str], dict[str, SubslideNote]]:
    """A notes file as its ``## `` blocks (heading -> text, the block's own lines: no
    ``### `` sub-block) and its ``### <cell id> · <label>`` sub-blocks (cell id -> note)."""
    blocks: dict[str, list[str]] = {}
    subs: dict[str, tuple[str | None, str, list[str]]] = {}
    section, target = None, None
    for line in text.splitlines():
        if line.startswith("## "):
            section = line[3:].strip()
            target = blocks.setdefault(section, [])
        elif line.startswith("### ") and (match := _SUBSLIDE.fullmatch(line.strip())):
            target = []
            subs[match.group(1)] = (section, match.group(2).strip(), target)
        elif target is not None:
            target.append(line)
    subslides = {}
    for cell_id, (parent, label, lines) in subs.items():
        body = "\n".join(lines).strip()
        minutes = _MINUTES.fullmatch(body.splitlines()[-1]) if body else None
        subslides[cell_id] = SubslideNote(
            parent, cell_id, label, body, int(minutes.group(1)) if minutes else None
        )
    return {heading: "\n".join(lines).strip() for heading, lines in blocks.items()}, subslides


def read_notes(path: Path) -> dict[str, str]:
    """The blocks of a notes file, keyed by their ``## `` heading (text after ``## ``), each
    without its subslides' ``### `` sub-blocks (:func:`read_subslide_notes`)."""
    return parse_notes(Path(path).read_text(encoding="utf-8"))[0]


def read_subslide_notes(path: Path) -> dict[str, SubslideNote]:
    """The ``### <cell id> · <label>`` sub-blocks of a notes file, keyed by cell id."""
    return parse_notes(Path(path).read_text(encoding="utf-8"))[1]


def _section_heading(cell) -> str | None:
    if cell.cell_type != "markdown":
        return None
    for line in cell.source.splitlines():
        if line.strip():
            return line[3:].strip() if line.startswith("## ") else None
    return None


def subslides(notebook) -> list[tuple[str | None, str, str | None]]:
    """Every slide of a tagged notebook that takes a ``### <cell id>`` sub-block of the notes
    file, in order: the title slide (a slide before the first section: what to say while the
    lesson's title is up) and every subslide. For each: (the ``## `` section it belongs to, or
    ``None`` before the first section; the id of the cell that starts it; that cell's ``### ``
    heading, or ``None`` when it opens without one)."""
    found, section = [], None
    for cell in notebook.cells:
        heading = _section_heading(cell)
        if heading is not None:
            section = heading
        kind = cell.metadata.get("slideshow", {}).get("slide_type")
        if kind == "subslide" or (kind == "slide" and section is None):
            first = next((line for line in cell.source.splitlines() if line.strip()), "")
            own = first[4:].strip() if first.startswith("### ") else None
            found.append((section, cell.get("id"), own if cell.cell_type == "markdown" else None))
    return found


def _minutes(block: str) -> int | None:
    found = _MINUTES.findall(block)
    return int(found[-1]) if found else None


def speaker_note(block: str, subslide_minutes: list[int] | None = None) -> str:
    """A notes block as the speaker view shows it on the section's first slide: the question
    for the room, its answers, the misconception and the minutes first (above the fold of a
    small speaker window), then the talking points; each "**Ask the room:**"-style line is its
    own paragraph. ``subslide_minutes`` (those of the section's subslides) splits the minutes
    line into this slide's share and the subslides'."""
    question_at = block.find("**Ask the room:**")
    points, question = (
        (block, "") if question_at < 0 else (block[:question_at], block[question_at:])
    )
    total = _minutes(question)
    if subslide_minutes and total is not None:
        rest = sum(subslide_minutes)
        count = len(subslide_minutes)
        question = question.replace(
            f"**Minutes:** {total}",
            f"**Minutes:** {total} for the section: {total - rest} on this slide, {rest} on its "
            f"{count} subslide{'s' if count > 1 else ''}",
        )
    parts = [question.strip(), ("**Points:**\n\n" + points.strip()) if points.strip() else ""]
    return re.sub(r"\n(?=\*\*)", "\n\n", "\n\n".join(p for p in parts if p))


def _question(block: str) -> str:
    line = next((x for x in block.splitlines() if x.startswith("**Ask the room:**")), "")
    return line[len("**Ask the room:**") :].strip()


def continued_note(
    section: str | None, block: str | None, note: SubslideNote | None, cell_id: str = ""
) -> str:
    """The speaker notes of a subslide, shortest first so that they fit a small speaker window:
    one short line with how long ("2 of 8 min · continued": this subslide's minutes of its
    section's; on the title slide's subslides "1 min · opening, before the first section"),
    then the subslide's own talking points, then the section's name and its question for the
    room (asked on the section's first slide). Without a sub-block for the subslide: what to
    add to the notes file instead of the talking points."""
    own = note.minutes if note is not None else None
    if section is None:
        where = (f"{own} min · " if own else "") + "opening, before the first section"
    else:
        total = _minutes(block or "")
        where = (f"{own} of {total} min · " if own and total else "") + "continued"
        if total and not own:
            where += f" · section {total} min"
    parts = [f"*{where}*"]
    if note is not None:
        parts.append(re.sub(r"\n*\*\*Minutes:\*\* \S+\s*$", "", note.text).strip())
    else:
        parts.append(f"(no notes for this subslide yet: add `### {cell_id} · ...`)")
    if section is not None:
        asked = _question(block or "")
        parts.append(
            f"*Section: {section}.*"
            + (f" *Question for the room (first slide):* {asked}" if asked else "")
        )
    return "\n\n".join(p for p in parts if p)


def _notes_cell(source: str):
    note = nbformat.v4.new_markdown_cell(source)
    note.metadata["slideshow"] = {"slide_type": "notes"}
    return note


def merge_notes(
    notebook, notes: dict[str, str], subslide_notes: dict[str, SubslideNote] | None = None
) -> list[str]:
    """Insert each block of ``notes`` as a reveal.js notes cell right after the ``## `` heading
    cell with the same text (in memory), and on each subslide its own notes from
    ``subslide_notes`` (keyed by the id of the cell that starts the subslide), headed by the
    section's name and minutes (:func:`continued_note`), so that no slide of a section shows an
    empty notes panel, and on the title slide its own sub-block; return what matched nothing: headings, then ``### <cell id>`` of
    sub-blocks naming no subslide of the notebook."""
    subslide_notes = subslide_notes or {}
    by_section: dict[str | None, list[int]] = {}
    for section, cell_id, _ in subslides(notebook):
        note = subslide_notes.get(cell_id)
        if note is not None and note.minutes is not None:
            by_section.setdefault(section, []).append(note.minutes)
    cells, used, used_subs, current, started = [], set(), set(), None, False
    for cell in notebook.cells:
        cells.append(cell)
        heading = _section_heading(cell)
        slide_type = cell.metadata.get("slideshow", {}).get("slide_type")
        if heading is not None or slide_type == "slide":
            started = started or heading is not None
            current = heading if heading in notes and heading not in used else None
            if current is not None:
                cells.append(_notes_cell(speaker_note(notes[current], by_section.get(current))))
                used.add(current)
            elif not started and (note := subslide_notes.get(cell.get("id", ""))) is not None:
                used_subs.add(note.cell_id)  # the title slide's own sub-block
                cells.append(_notes_cell(continued_note(None, None, note, note.cell_id)))
        elif slide_type == "subslide" and (current is not None or not started):
            cell_id = cell.get("id", "")
            note = subslide_notes.get(cell_id)
            if note is None and current is None:
                continue  # a title slide's subslide without notes: nothing to say
            used_subs.add(cell_id)
            section = current if started else None
            block = notes.get(current) if current is not None else None
            cells.append(_notes_cell(continued_note(section, block, note, cell_id)))
    notebook.cells = cells
    return [heading for heading in notes if heading not in used] + [
        f"### {cell_id}" for cell_id in subslide_notes if cell_id not in used_subs
    ]


def notes_file(path: Path) -> Path:
    """Where the speaker notes of lesson ``NN_x.ipynb`` live: ``lectures/NN_notes.md`` beside it."""
    return Path(path).parent / "lectures" / f"{Path(path).stem[:2]}_notes.md"
