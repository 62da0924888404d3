"""Study time: how long a learner needs for a lesson, computed from the notebook's content.

The rule (issue 27): prose is read at 120 words per minute, code at 8 lines per minute (reading
it and running it), and each exercise takes 10 minutes. A lesson's cells fall into three parts:

- **core**: everything up to the summary and the summary itself: the lesson proper;
- **exercises**: from a ``## Exercises`` (or ``### Exercises``) heading on; each exercise is a
  line opening with ``**N.`` or ``N. **`` there and counts ``MINUTES_PER_EXERCISE`` minutes
  (its prose and stub code are part of those minutes, not counted again);
- **optional**: from a ``## Going deeper`` heading on: digressions kept for the curious, counted
  apart from the core.

A part runs until the next ``##`` heading that opens another part (or the ``**Next:**`` link,
which is core). The ``**Study time:**`` line itself is not counted, so writing it changes
nothing. Words are whitespace-separated tokens of markdown cells (a formula counts by its
tokens: slower to read than prose, and the rule stays simple); code lines are the non-blank
lines of code cells. Stated times are rounded up to 5 minutes (:func:`round_minutes`).

Only the standard library and nbformat-like dicts: a notebook is anything with ``.cells``, each
cell with ``.cell_type`` and ``.source``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

WORDS_PER_MINUTE = 120
CODE_LINES_PER_MINUTE = 8
MINUTES_PER_EXERCISE = 10

CORE, EXERCISES, OPTIONAL = "core", "exercises", "optional"

_HEADING_RE = re.compile(r"^(#{2,3}) (.*)$")
_EXERCISE_RE = re.compile(r"^(\*\*\d+\.|\d+\. \*\*)")
STUDY_LINE_RE = re.compile(r"^\*\*Study time:\*\* .*$", re.MULTILINE)  # not counted itself

__all__ = [
    "CODE_LINES_PER_MINUTE",
    "MINUTES_PER_EXERCISE",
    "WORDS_PER_MINUTE",
    "STUDY_LINE_RE",
    "StudyTime",
    "cell_parts",
    "round_minutes",
    "study_time",
]


def round_minutes(minutes: float) -> int:
    """A stated study time: ``minutes`` rounded up to a multiple of 5 (at least 5)."""
    if minutes < 0 or not math.isfinite(minutes):
        raise ValueError(f"minutes must be a finite number >= 0, got {minutes!r}")
    return max(5, 5 * math.ceil(minutes / 5 - 1e-9))


def _part_opened_by(source: str, current: str) -> str:
    """The part a markdown cell opens (its first heading), or ``current`` if it opens none."""
    if source.lstrip().startswith("**Next:**"):
        return CORE
    for line in source.splitlines():
        match = _HEADING_RE.match(line)
        if not match:
            continue
        level, title = match.group(1), match.group(2).strip().lower()
        if title.startswith("exercises"):
            return EXERCISES
        if level == "##" and title.startswith("going deeper"):
            return OPTIONAL
        if level == "##" and current != OPTIONAL:
            return CORE
        return current
    return current


def cell_parts(notebook) -> list[str]:
    """The part of every cell, in order: ``"core"``, ``"exercises"`` or ``"optional"``."""
    parts, current = [], CORE
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            current = _part_opened_by(cell.source, current)
        parts.append(current)
    return parts


@dataclass(frozen=True)
class StudyTime:
    """What a notebook holds, by part, and the minutes the rule gives it."""

    words: int  # prose words of the core
    code_lines: int  # non-blank code lines of the core
    exercises: int  # number of exercises
    optional_words: int
    optional_code_lines: int

    @property
    def core_minutes(self) -> float:
        """Minutes to read and run the lesson proper."""
        return self.words / WORDS_PER_MINUTE + self.code_lines / CODE_LINES_PER_MINUTE

    @property
    def exercise_minutes(self) -> float:
        return float(self.exercises * MINUTES_PER_EXERCISE)

    @property
    def optional_minutes(self) -> float:
        """Minutes for the optional "Going deeper" part (0 when there is none)."""
        return (
            self.optional_words / WORDS_PER_MINUTE
            + self.optional_code_lines / CODE_LINES_PER_MINUTE
        )

    def header_line(self) -> str:
        """The line written into a notebook's first cell."""
        core = round_minutes(self.core_minutes)
        line = f"**Study time:** about {core} min to read and run"
        if self.exercises:
            total = round_minutes(self.core_minutes + self.exercise_minutes)
            line += f", about {total} min with the {self.exercises} exercises"
        if self.optional_words or self.optional_code_lines:
            line += (
                f"; the optional part (Going deeper) adds about "
                f"{round_minutes(self.optional_minutes)} min"
            )
        return line + "."

    def readme_cell(self) -> str:
        """The README course map's study-time cell: ``core / with exercises min (+optional)``."""
        core = round_minutes(self.core_minutes)
        text = f"{core} / {round_minutes(self.core_minutes + self.exercise_minutes)} min"
        if self.optional_words or self.optional_code_lines:
            text += f" (+{round_minutes(self.optional_minutes)} optional)"
        return text


def study_time(notebook) -> StudyTime:
    """Count a notebook's core prose and code, its exercises and its optional part."""
    counts = {CORE: [0, 0], OPTIONAL: [0, 0]}
    exercises = 0
    for cell, part in zip(notebook.cells, cell_parts(notebook), strict=True):
        if part == EXERCISES:
            if cell.cell_type == "markdown":
                exercises += sum(
                    bool(_EXERCISE_RE.match(line.lstrip())) for line in cell.source.splitlines()
                )
            continue
        if cell.cell_type == "markdown":
            prose = [line for line in cell.source.splitlines() if not STUDY_LINE_RE.match(line)]
            counts[part][0] += len(" ".join(prose).split())
        elif cell.cell_type == "code":
            counts[part][1] += sum(1 for line in cell.source.splitlines() if line.strip())
    return StudyTime(
        words=counts[CORE][0],
        code_lines=counts[CORE][1],
        exercises=exercises,
        optional_words=counts[OPTIONAL][0],
        optional_code_lines=counts[OPTIONAL][1],
    )
