"""Generate, from the course manifest (``notebooks/course.toml``), every part of the course that
lists, counts or links the lessons; check that none is stale.

Usage::

    python scripts/course.py --check            # exit 1, naming every stale part
    python scripts/course.py --write            # rewrite the stale parts in place
    python scripts/course.py --list portable    # notebooks with a flag (portable, trains, graded,
                                                # solutions), one path a line, for .ci/run

What is generated (each part named in ``--check``'s report):

- ``README.md``: the course map and the worked-solutions table (between ``<!-- course-map -->``
  and ``<!-- /course-map -->``, ``<!-- solutions-table -->`` and ``<!-- /solutions-table -->``);
- ``notebooks/guide_maintainers.md``: which lessons fit a 45-minute sitting
  (``<!-- sittings -->``) and which train many models (``<!-- trains -->``);
- ``notebooks/guide_lecturers.md``: the lecture plan's count of sessions, lectures and labs;
- ``notebooks/lecture_plan.md``: the overview table (``<!-- sessions -->``), its count of
  lectures and labs, each lesson line's run time and the range of lessons with worked solutions;
- lesson 00: the course map (the tables opening cells ``5f650b5d`` and ``203266b1``, split in
  two halves for the slides) and the labels of their speaker-note sub-blocks in
  ``notebooks/lectures/00_notes.md``;
- every lesson: the study-time and run-time lines of its first cell (or of the notes cells that
  continue it: :func:`header_cells`) and the ``**Next:**`` link
  closing its last markdown cell (the next lesson, and its question when the link is written
  afresh; the last lesson's sends the learner back to 00); every worked solution: its run-time
  line and, where it has one, its ``**Back to the lesson:**`` link.

Checked, not written (a person must fix them): each lesson's first heading starts with
``# NN · <title>``, a lesson with worked solutions links to them, the manifest lists exactly
the notebooks on disk, the sessions of the manifest are the lessons the plan's sessions list,
and every lesson's measured numbers are in the manifest. The measured numbers themselves
(``run_s``, ``study_min``, ...) are written into the manifest by ``scripts/time_notebooks.py``,
which then calls :func:`write`.

The generated text is the same for the same manifest (no dates, no machine), so translations of
it (``scripts/i18n.py``) change only when a lesson's entry does.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, Lesson, lessons, portable_notebooks  # noqa: E402

README = "README.md"
LECTURERS = "notebooks/guide_lecturers.md"  # the guides moved out of the README (issue 41)
MAINTAINERS = "notebooks/guide_maintainers.md"
PLAN = "notebooks/lecture_plan.md"
NOTES = "notebooks/lectures"
MAP_CELLS = ("5f650b5d", "a3c0e7d1", "203266b1")  # lesson 00: the course map in three parts
SITTING_MIN = 45  # guide for maintainers: a lesson should fit one sitting (read and run)

# "**Estimated run time:** about 50 s on a laptop CPU" (group 2: the seconds)
RUN_LINE_RE = re.compile(r"(\*\*Estimated run time:\*\* about )(\d+)( s on a laptop CPU)")
STUDY_LINE_RE = re.compile(r"^\*\*Study time:\*\* .*$", re.MULTILINE)
_SESSION_RE = re.compile(r"^## Session (\d+) \((lecture|lab)\): (.+)$", re.MULTILINE)
_LESSON_LINE_RE = re.compile(
    r"^- \[(\d\d) · [^\]]+\]\(\d\d_\w+\.ipynb\) \(run time \d+ s\): (.+)$", re.MULTILINE
)


class StaleError(Exception):
    """A part that cannot be generated or checked as it stands (markers missing, ...)."""


@dataclass
class Part:
    """One generated part: the file it is in, its name, and how to bring it up to date.

    ``update`` takes the file's text (a text file) or its notebook (changed in place) and
    returns the new text (text files) or None; ``writable`` False means only checked."""

    file: str
    name: str
    update: Callable
    writable: bool = True


# ------------------------------------------------------------------------ text of the parts


def number_range(numbers: list[str]) -> str:
    """``["00", "01", "02", "05", "07", "08"]`` -> ``"00-02, 05, 07 and 08"`` (runs of three
    or more as a range); ``""`` for none."""
    runs: list[list[int]] = []
    for n in sorted(int(x) for x in numbers):
        if runs and n == runs[-1][-1] + 1:
            runs[-1].append(n)
        else:
            runs.append([n])
    parts = []
    for run in runs:
        if len(run) >= 3:
            parts.append(f"{run[0]:02d}-{run[-1]:02d}")
        else:
            parts += [f"{n:02d}" for n in run]
    if len(parts) <= 1:
        return "".join(parts)
    return ", ".join(parts[:-1]) + f" and {parts[-1]}"


def study_cell(lesson: Lesson) -> str:
    """The course map's study-time cell: ``core / with exercises min (+optional)``."""
    core, total, optional = lesson.study_min
    return f"{core} / {total} min" + (f" (+{optional} optional)" if optional else "")


def study_line(lesson: Lesson) -> str:
    """The ``**Study time:**`` line of the lesson's first cell."""
    core, total, optional = lesson.study_min
    line = f"**Study time:** about {core} min to read and run"
    if lesson.exercises:
        line += f", about {total} min with the {lesson.exercises} exercises"
    if optional:
        line += f"; the optional part (Going deeper) adds about {optional} min"
    return line + "."


def course_map(course: list[Lesson]) -> str:
    """The README course map."""
    rows = [
        "| # | notebook | what you learn | study time: read and run / with exercises "
        "| run time on a laptop CPU |",
        "|---|---|---|---|---|",
    ]
    rows += [
        f"| {x.number} | [{x.name}](notebooks/{x.file}) | {x.learn} | {study_cell(x)} "
        f"| about {x.run_s} s |"
        for x in course
    ]
    return "\n".join(rows)


def solutions_table(course: list[Lesson]) -> str:
    """The README's table of worked solutions."""
    rows = ["| notebook | worked solutions |", "|---|---|"]
    rows += [
        f"| {x.number} · {x.name.replace('_', ' ')} "
        f"| [solutions/{x.file}](notebooks/solutions/{x.file}) |"
        for x in course
        if x.solutions
    ]
    return "\n".join(rows)


def sittings(course: list[Lesson]) -> str:
    """Which lessons fit a 45-minute sitting to read and run (their optional part aside)."""
    fit = [x.number for x in course if x.study_min[0] <= SITTING_MIN]
    longer = [x.number for x in course if x.study_min[0] > SITTING_MIN]
    if not longer:
        return "every lesson fits it"
    text = f"{number_range(fit)} fit it; " if fit else ""
    return text + f"{number_range(longer)} take longer (a sitting can end at any `##` section)"


def map_parts(course: list[Lesson]) -> list[list[Lesson]]:
    """Lesson 00's course map in ``len(MAP_CELLS)`` parts (one slide each, short enough for the
    decks' words per slide), the first ones the longer."""
    size = math.ceil(len(course) / len(MAP_CELLS))
    return [course[i : i + size] for i in range(0, len(course), size)]


def map_table(half: list[Lesson]) -> str:
    rows = ["| # | notebook | question it answers |", "|---|---|---|"]
    return "\n".join(rows + [f"| {x.number} | {x.name} | {x.question} |" for x in half])


# ------------------------------------------------------------------------ editing helpers


def between(text: str, marker: str, body: str) -> str:
    """``text`` with what lies between ``<!-- marker -->`` and ``<!-- /marker -->`` replaced
    by ``body`` (a block marker alone on its line gets ``body`` on the lines between)."""
    start, end = f"<!-- {marker} -->", f"<!-- /{marker} -->"
    if text.count(start) != 1 or text.count(end) != 1 or text.index(start) > text.index(end):
        raise StaleError(f"the markers {start} ... {end} are missing")
    head, rest = text.split(start, 1)
    old, tail = rest.split(end, 1)
    block = old.startswith("\n")
    return head + start + (f"\n{body}\n" if block else body) + end + tail


def substitute(text: str, pattern: str, replace: Callable[[re.Match], str], what: str) -> str:
    """``text`` with every match of ``pattern`` replaced; StaleError if there is none."""
    new, count = re.subn(pattern, replace, text, flags=re.MULTILINE)
    if not count:
        raise StaleError(f"no {what} found")
    return new


def markdown_cells(notebook) -> list:
    return [cell for cell in notebook.cells if cell.cell_type == "markdown"]


def replace_paragraph(source: str, starts: str, paragraph: str | None) -> tuple[str, bool]:
    """``source`` with its paragraph opening with ``starts`` replaced by ``paragraph`` (None:
    left as it is); whether there was one."""
    paragraphs = source.split("\n\n")
    for i, text in enumerate(paragraphs):
        if text.startswith(starts):
            if paragraph is not None:
                paragraphs[i] = paragraph
            return "\n\n".join(paragraphs), True
    return source, False


# ------------------------------------------------------------------------ lecture plan


def plan_sessions(plan: str) -> dict[int, tuple[str, str, str]]:
    """Session number -> (kind, title, body) from the plan's ``## Session N (kind): title``."""
    starts = list(_SESSION_RE.finditer(plan))
    sessions = {}
    for here, after in zip(starts, [*starts[1:], None], strict=True):
        body = plan[here.end() : after.start() if after else len(plan)]
        sessions[int(here.group(1))] = (here.group(2), here.group(3).strip(), body)
    return sessions


def note_minutes(root: Path, number: str) -> dict[str, int]:
    """Section heading -> its minutes in ``notebooks/lectures/NN_notes.md`` (the section's own
    block, not its subslides' ``### `` sub-blocks)."""
    path = Path(root) / NOTES / f"{number}_notes.md"
    if not path.is_file():
        return {}
    minutes = {}
    for block in re.split(r"^## ", path.read_text(encoding="utf-8"), flags=re.MULTILINE)[1:]:
        heading, _, rest = block.partition("\n")
        own = re.split(r"^### ", rest, flags=re.MULTILINE)[0]
        found = re.findall(r"\*\*Minutes:\*\* (\d+)", own)
        minutes[heading.strip()] = int(found[-1]) if found else 0
    return minutes


def session_sections(body: str) -> list[tuple[str, list[str]]]:
    """A session's "Lessons and sections": (lesson NN, [section heading or "all sections"])."""
    if "**Lessons and sections**" not in body:
        return []
    listed = body.split("**Lessons and sections**", 1)[1].split("\n**", 1)[0]
    return [
        (nn, ["all sections"] if text.strip() == "all sections" else text.split("; "))
        for nn, text in _LESSON_LINE_RE.findall(listed)
    ]


def session_minutes(root: Path, kind: str, body: str) -> int:
    """A lab's 90 minutes, or the sum of the notes' minutes of a lecture's listed sections (a
    heading the plan shortens after a colon counts once it names one section)."""
    if kind == "lab":
        return 90
    total = 0
    for nn, sections in session_sections(body):
        minutes = note_minutes(root, nn)
        if sections == ["all sections"]:
            total += sum(m for h, m in minutes.items() if h != "Exercises")
            continue
        for listed in (s.strip()[1:-1] for s in sections):
            plain = {h: h.replace("*", "") for h in minutes}  # the plan drops emphasis
            matches = [h for h in minutes if plain[h] == listed] or [
                h for h in minutes if plain[h].startswith(listed)
            ]
            if len(matches) != 1:
                raise StaleError(f"no notes section for {nn} *{listed}*")
            total += minutes[matches[0]]
    return total


def plan_table(course: list[Lesson], plan: str, root: Path) -> str:
    """The lecture plan's overview table."""
    rows = [
        "| # | kind | session | lessons | run time of the lessons | minutes in the notes |",
        "|---|---|---|---|---|---|",
    ]
    for number, (kind, title, body) in sorted(plan_sessions(plan).items()):
        members = [x for x in course if number in x.sessions]
        names = ", ".join(x.number for x in members)
        times = ", ".join(f"{x.number}: {x.run_s} s" for x in members)
        minutes = session_minutes(root, kind, body)
        rows.append(f"| {number} | {kind.title()} | {title} | {names} | {times} | {minutes} |")
    return "\n".join(rows)


def session_problems(course: list[Lesson], plan: str) -> list[str]:
    """Where the manifest's sessions and the plan disagree: a session number the plan lacks, or
    a lecture whose "Lessons and sections" lists other lessons than the manifest gives it."""
    sessions = plan_sessions(plan)
    problems = [
        f"notebooks/course.toml: lesson {x.number} names session {s}, the plan has none"
        for x in course
        for s in x.sessions
        if s not in sessions
    ]
    for number, (kind, _, body) in sorted(sessions.items()):
        listed = sorted({nn for nn, _ in session_sections(body)})
        manifest = [x.number for x in course if number in x.sessions]
        if kind == "lecture" and listed != manifest:
            problems.append(
                f"{PLAN}: session {number} lists lessons {listed}, "
                f"notebooks/course.toml gives it {manifest}"
            )
    return problems


def counts(plan: str) -> tuple[int, int, int]:
    """(sessions, lectures, labs) of the plan."""
    kinds = [kind for kind, _, _ in plan_sessions(plan).values()]
    return len(kinds), kinds.count("lecture"), kinds.count("lab")


# ------------------------------------------------------------------------ the parts


def _readme_parts(course: list[Lesson], root: Path) -> list[Part]:
    plan = (Path(root) / PLAN).read_text(encoding="utf-8")
    sessions, lectures, labs = counts(plan)
    trains = number_range([x.number for x in course if x.trains])
    return [
        Part(README, "course map", lambda t: between(t, "course-map", course_map(course))),
        Part(
            README,
            "solutions table",
            lambda t: between(t, "solutions-table", solutions_table(course)),
        ),
        Part(MAINTAINERS, "45-minute sittings", lambda t: between(t, "sittings", sittings(course))),
        Part(MAINTAINERS, "lessons that train", lambda t: between(t, "trains", trains)),
        Part(
            LECTURERS,
            "the lecture plan's sessions",
            lambda t: substitute(
                t,
                r"\d+ sessions of 90 minutes \(\d+ lectures, \d+ labs\)",
                lambda _: f"{sessions} sessions of 90 minutes ({lectures} lectures, {labs} labs)",
                "'N sessions of 90 minutes (N lectures, N labs)'",
            ),
        ),
    ]


def _plan_parts(course: list[Lesson], root: Path) -> list[Part]:
    by_stem = {x.stem: x for x in course}
    with_solutions = [x.number for x in course if x.solutions]

    def lesson_times(text: str) -> str:
        def replace(match: re.Match) -> str:
            lesson = by_stem.get(match.group(1))
            if lesson is None:
                raise StaleError(f"a lesson line links {match.group(1)}.ipynb, not in the manifest")
            return f"]({lesson.file}) (run time {lesson.run_s} s)"

        return substitute(
            text, r"\]\((\d\d_\w+)\.ipynb\) \(run time \d+ s\)", replace, "lesson line"
        )

    def intro(text: str) -> str:
        _, lectures, labs = counts(text)
        return substitute(
            text,
            r"\d+ lectures and \d+ labs",
            lambda _: f"{lectures} lectures and {labs} labs",
            "'N lectures and N labs'",
        )

    def solutions_range(text: str) -> str:
        first, last = with_solutions[0], with_solutions[-1]
        return substitute(
            text,
            r"Worked solutions for lessons \d\d-\d\d",
            lambda _: f"Worked solutions for lessons {first}-{last}",
            "'Worked solutions for lessons NN-NN'",
        )

    return [
        Part(PLAN, "overview table", lambda t: between(t, "sessions", plan_table(course, t, root))),
        Part(PLAN, "count of lectures and labs", intro),
        Part(PLAN, "run times of the lesson lines", lesson_times),
        Part(PLAN, "lessons with worked solutions", solutions_range),
    ]


def _notes_parts(course: list[Lesson]) -> list[Part]:
    def labels(text: str) -> str:
        for cell_id, half in zip(MAP_CELLS, map_parts(course), strict=True):
            label = f"Course map, lessons {half[0].number}-{half[-1].number}"
            text = substitute(
                text,
                rf"^### {cell_id} · .*$",
                lambda _, label=label, cell_id=cell_id: f"### {cell_id} · {label}",
                f"sub-block ### {cell_id}",
            )
        return text

    return [Part(f"{NOTES}/00_notes.md", "labels of the course map's subslides", labels)]


def _cell(notebook, cell_id: str):
    found = [cell for cell in notebook.cells if cell.get("id") == cell_id]
    if len(found) != 1:
        raise StaleError(f"no cell with id {cell_id}")
    return found[0]


def _set_map(notebook, course: list[Lesson]) -> None:
    for cell_id, half in zip(MAP_CELLS, map_parts(course), strict=True):
        cell = _cell(notebook, cell_id)
        lines = cell.source.split("\n")
        rest = next((i for i, line in enumerate(lines) if not line.startswith("|")), len(lines))
        cell.source = "\n".join([map_table(half), *lines[rest:]])


def header_cells(notebook) -> list:
    """The lesson's first cell and the author's markdown cells of slide type ``notes`` that
    follow it: a title cell split for the deck (its statement on the title slide, the rest in
    the speaker notes) reads as one cell in the notebook, and its study-time and run-time lines
    may stand in the continuation."""
    cells = list(notebook.cells[:1])
    for cell in notebook.cells[1:]:
        kind = cell.metadata.get("slideshow", {}).get("slide_type")
        if cell.cell_type != "markdown" or kind != "notes":
            break
        cells.append(cell)
    return cells


def header_cell(notebook, pattern: re.Pattern):
    """The header cell (:func:`header_cells`) whose text ``pattern`` finds, else None."""
    return next((c for c in header_cells(notebook) if pattern.search(c.source)), None)


def _set_run_line(notebook, seconds: int | None) -> None:
    cell = header_cell(notebook, RUN_LINE_RE) or header_cells(notebook)[-1]
    if seconds is None:
        raise StaleError("no run time in the manifest: run scripts/time_notebooks.py --write")
    if not RUN_LINE_RE.search(cell.source):
        cell.source += f"\n\n**Estimated run time:** about {seconds} s on a laptop CPU."
    cell.source = RUN_LINE_RE.sub(lambda m: f"{m.group(1)}{seconds}{m.group(3)}", cell.source, 1)


def _set_study_line(notebook, lesson: Lesson) -> None:
    if lesson.study_min is None or lesson.exercises is None:
        raise StaleError(
            "no study time in the manifest: run scripts/time_notebooks.py --study --write-study"
        )
    line = study_line(lesson)
    cell = (
        header_cell(notebook, STUDY_LINE_RE)
        or header_cell(notebook, RUN_LINE_RE)
        or header_cells(notebook)[-1]
    )
    if STUDY_LINE_RE.search(cell.source):
        cell.source = STUDY_LINE_RE.sub(lambda _: line, cell.source, 1)
        return
    found = RUN_LINE_RE.search(cell.source)
    where = found.start() if found else len(cell.source) + 2
    cell.source = f"{cell.source[:where].rstrip()}\n\n{line}\n\n{cell.source[where:]}".rstrip()


def next_link(course: list[Lesson], index: int) -> tuple[str, str]:
    """(the start every lesson's ``**Next:**`` paragraph must have, the paragraph written
    afresh when it has not): the next lesson and its question, or for the last lesson a link
    back to 00."""
    if index + 1 < len(course):
        target = course[index + 1]
        start = f"**Next:** [{target.number} · {target.title}]({target.file})"
        return start, f"{start}: {target.question}"
    first = course[0]
    start = f"**Next:** go back to [{first.number} · {first.title}]({first.file})"
    return start, f"{start} for the map of the course."


def _relinked(paragraph: str, start: str, fresh: str) -> str:
    """A ``**Next:**`` paragraph whose first link goes to the right notebook under another text
    keeps the rest of its words with the link text replaced; any other is written afresh."""
    link = re.match(r"\*\*Next:\*\*[^\[]*\[[^\]]*\]\(([^)]*)\)", paragraph)
    wanted = re.search(r"\]\(([^)]*)\)$", start).group(1)
    if link and link.group(1) == wanted:
        return start + paragraph[link.end() :]
    return fresh


def _set_next(notebook, course: list[Lesson], index: int) -> None:
    """The ``**Next:**`` paragraph of the lesson's last markdown cell: kept when it starts with
    the right link, relinked or written afresh when not, added when there is none."""
    start, fresh = next_link(course, index)
    cells = markdown_cells(notebook)
    if not cells:
        raise StaleError("no markdown cell to close with the Next link")
    cell = cells[-1]
    paragraph = next((p for p in cell.source.split("\n\n") if p.startswith("**Next:**")), None)
    if paragraph is None:
        cell.source = f"{cell.source.rstrip()}\n\n{fresh}"
    elif not paragraph.startswith(start):
        new = _relinked(paragraph, start, fresh)
        cell.source, _ = replace_paragraph(cell.source, "**Next:**", new)


def _set_back_link(notebook, lesson: Lesson) -> None:
    link = f"**Back to the lesson:** [{lesson.number} · {lesson.title}](../{lesson.file})."
    for cell in markdown_cells(notebook):
        paragraph = next(
            (p for p in cell.source.split("\n\n") if p.startswith("**Back to the lesson:**")), None
        )
        if paragraph is not None and paragraph != link:
            cell.source, _ = replace_paragraph(cell.source, "**Back to the lesson:**", link)


def _check_heading(notebook, lesson: Lesson, solutions: bool = False) -> None:
    heading = notebook.cells[0].source.split("\n", 1)[0] if notebook.cells else ""
    start = f"# {lesson.number} · {lesson.title}"
    if not (heading == start or heading.startswith(f"{start}:")):
        raise StaleError(f"the first heading is {heading!r}; it should start with {start!r}")
    if solutions and not heading.endswith(": worked solutions"):
        raise StaleError(f"the first heading {heading!r} should end with ': worked solutions'")


def _check_solutions_link(notebook, lesson: Lesson) -> None:
    if not any(f"](solutions/{lesson.file})" in c.source for c in markdown_cells(notebook)):
        raise StaleError(f"no link to its worked solutions, solutions/{lesson.file}")


def _notebook_parts(course: list[Lesson]) -> list[Part]:
    parts = []
    for index, lesson in enumerate(course):
        file = f"notebooks/{lesson.file}"
        parts += [
            Part(file, "title", lambda nb, x=lesson: _check_heading(nb, x), writable=False),
            Part(file, "study-time line", lambda nb, x=lesson: _set_study_line(nb, x)),
            Part(file, "run-time line", lambda nb, x=lesson: _set_run_line(nb, x.run_s)),
            Part(file, "Next link", lambda nb, i=index: _set_next(nb, course, i)),
        ]
        if index == 0:
            parts.append(Part(file, "course map", lambda nb: _set_map(nb, course)))
        if not lesson.solutions:
            continue
        parts.append(
            Part(
                file,
                "link to its worked solutions",
                lambda nb, x=lesson: _check_solutions_link(nb, x),
                writable=False,
            )
        )
        solution = f"notebooks/solutions/{lesson.file}"
        parts += [
            Part(
                solution, "title", lambda nb, x=lesson: _check_heading(nb, x, True), writable=False
            ),
            Part(
                solution, "run-time line", lambda nb, x=lesson: _set_run_line(nb, x.solutions_run_s)
            ),
            Part(solution, "Back to the lesson link", lambda nb, x=lesson: _set_back_link(nb, x)),
        ]
    return parts


def parts(course: list[Lesson], root: Path = ROOT) -> list[Part]:
    """Every generated or checked part of the course at ``root``, file by file."""
    return [
        *_readme_parts(course, root),
        *_plan_parts(course, root),
        *_notes_parts(course),
        *_notebook_parts(course),
    ]


# ------------------------------------------------------------------------ check and write


def disk_problems(course: list[Lesson], root: Path = ROOT) -> list[str]:
    """Where the manifest and the notebooks on disk differ (lessons, worked solutions)."""
    root = Path(root)
    listed = {x.file for x in course}
    on_disk = {p.name for p in (root / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    solutions = {x.file for x in course if x.solutions}
    solutions_on_disk = {
        p.name for p in (root / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb")
    }
    problems = [f"notebooks/{n}: not in notebooks/course.toml" for n in sorted(on_disk - listed)]
    problems += [f"notebooks/course.toml: {n} is not on disk" for n in sorted(listed - on_disk)]
    problems += [
        f"notebooks/solutions/{n}: on disk, but its lesson says solutions = false"
        for n in sorted(solutions_on_disk - solutions)
    ]
    problems += [
        f"notebooks/course.toml: solutions = true, notebooks/solutions/{n} is not on disk"
        for n in sorted(solutions - solutions_on_disk)
    ]
    return problems


def measured_problems(course: list[Lesson]) -> list[str]:
    """A lesson whose run or study time the manifest does not hold yet, with the command."""
    problems = []
    for x in course:
        if x.run_s is None or (x.solutions and x.solutions_run_s is None):
            problems.append(
                f"notebooks/course.toml: lesson {x.number} has no measured run time: "
                f"python scripts/time_notebooks.py --write --no-tests notebooks/{x.file}"
                + (f" notebooks/solutions/{x.file}" if x.solutions else "")
            )
        if x.study_min is None or x.exercises is None:
            problems.append(
                f"notebooks/course.toml: lesson {x.number} has no study time: "
                f"python scripts/time_notebooks.py --study --write-study notebooks/{x.file}"
            )
    return problems


def run(root: Path = ROOT, write: bool = False) -> list[str]:
    """Bring every part of the course at ``root`` up to date (``write``) or only compare; return
    one line per stale part (when writing: per part that could not be written)."""
    root = Path(root)
    course = lessons(root)
    problems = disk_problems(course, root) + measured_problems(course)
    problems += session_problems(course, (root / PLAN).read_text(encoding="utf-8"))
    if problems:
        return problems  # generating from a manifest that is wrong would only add noise
    by_file: dict[str, list[Part]] = {}
    for part in parts(course, root):
        by_file.setdefault(part.file, []).append(part)
    for file, file_parts in by_file.items():
        problems += _run_file(root / file, file, file_parts, write)
    return problems


def _run_file(path: Path, file: str, file_parts: list[Part], write: bool) -> list[str]:
    problems = []
    is_notebook = path.suffix == ".ipynb"
    content = nbformat.read(path, as_version=4) if is_notebook else path.read_text("utf-8")
    changed = False
    for part in file_parts:
        before = [c.source for c in content.cells] if is_notebook else content
        try:
            result = part.update(content)
        except StaleError as error:
            problems.append(f"{file}: {part.name}: {error}")
            continue
        after = [c.source for c in content.cells] if is_notebook else result
        if not is_notebook:
            content = result
        if after != before:
            changed = True
            if not write or not part.writable:
                problems.append(f"{file}: {part.name} is stale (python scripts/course.py --write)")
    if write and changed:
        if is_notebook:
            nbformat.write(content, path)
        else:
            path.write_text(content, encoding="utf-8")
    return problems


def write(root: Path = ROOT) -> list[str]:
    """Rewrite every stale part of the course at ``root``; return what could not be written."""
    return run(root, write=True)


def flagged(flag: str, root: Path = ROOT) -> list[Path]:
    """The notebooks with ``flag``: ``portable`` (what .ci/run re-runs: lessons and worked
    solutions), ``trains``, ``graded`` or ``solutions`` (the worked solutions)."""
    course = lessons(root)
    if flag == "portable":
        return portable_notebooks(root)
    if flag == "solutions":
        return [x.solutions_path(root) for x in course if x.solutions]
    if flag in ("trains", "graded"):
        return [x.path(root) for x in course if getattr(x, flag)]
    raise ValueError(f"flag must be portable, trains, graded or solutions, got {flag!r}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    action = parser.add_mutually_exclusive_group(required=True)
    action.add_argument("--check", action="store_true", help="exit 1 naming every stale part")
    action.add_argument("--write", action="store_true", help="rewrite the stale parts")
    action.add_argument(
        "--list",
        metavar="FLAG",
        choices=("portable", "trains", "graded", "solutions"),
        help="print the notebooks with FLAG, one path a line (relative to the repository)",
    )
    args = parser.parse_args(argv)
    if args.list:
        for path in flagged(args.list):
            print(path.relative_to(ROOT).as_posix())
        return 0
    problems = run(write=args.write)
    for problem in problems:
        print(problem)
    if args.check and not problems:
        print(f"course.py: every generated part is up to date ({len(lessons())} lessons)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
