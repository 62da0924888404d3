"""Time the course: each notebook's run time and study time, their total, and the unit tests;
keep the numbers the course states in the course manifest, from one measurement.

Usage::

    python scripts/time_notebooks.py                       # every notebook, then `pytest tests -q`
    python scripts/time_notebooks.py notebooks/0[01]_*.ipynb --no-tests
    python scripts/time_notebooks.py --write --no-tests    # measure, then write the manifest
    python scripts/time_notebooks.py --check --no-tests    # measure, fail if the stated times are off
    python scripts/time_notebooks.py --suite --markdown    # also the README's whole `pytest`
    python scripts/time_notebooks.py --study               # study times of every lesson (no run)
    python scripts/time_notebooks.py --study --write-study # ... written into the manifest

**Run times.** Notebooks run as ``scripts/execute_notebooks.py --check-only`` runs them (fresh
kernel, top to bottom, nothing executed is written). For each notebook the script prints the
wall-clock time and the CPU time of its kernel; on a shared machine the CPU time is the steadier
of the two. ``--write`` rounds each measurement up (:func:`round_up`) and writes it into the
course manifest (``notebooks/course.toml``: ``run_s``, or ``solutions_run_s`` for worked
solutions), then regenerates what states it (``scripts/course.py --write``: the README course
map, the notebook's header line ``**Estimated run time:** about N s on a laptop CPU...``, the
lecture plan); a lesson's study time is written with it (it needs no run, and a new lesson has
none yet). ``--check`` fails when a measurement is not within ``--tolerance`` of what the
manifest states. ``--clock cpu`` uses the kernel's CPU time instead of the wall clock (for a busy
machine). Timings depend on the machine and its load: write them on an otherwise idle machine.
A notebook that the manifest does not list (one outside the repository) gets its header line
written directly.

**Study times** (``--study``; issues 27 and 41) depend only on the notebooks' content: nothing
is executed. The rule, calibrated on first-time readers (issue 41: a careful reader who had never
implemented attention took about 55 min for lesson 03, 46-50 for 05 and 75-80 for 10, which the
rule gives as 55, 48 and 80): prose is read at 100 words per minute (a word has a letter or a
digit: a table's pipes and rules, or a list's bullets, are not words), code at 6.5 lines per minute
(reading it and running it), and each exercise takes 10 minutes. A lesson's cells fall into three
parts:

- **core**: the lesson proper, summary included; what every learner reads;
- **exercises**: from a ``## Exercises`` (or ``### Exercises``) heading on; each exercise is a
  line opening with ``**N.`` or ``N. **`` there and counts ``MINUTES_PER_EXERCISE`` minutes
  (its prose and stub code are part of those minutes, not counted again); a later ``##``
  heading ends it;
- **optional**: a section whose heading starts with "Going deeper" or "Optional" (any level),
  up to the next heading of the same or a higher level: digressions kept for the curious,
  counted apart from the core. It can sit anywhere in the lesson.

The ``**Next:**`` link is core. A cell's part is decided by its first heading. The ``**Study
time:**`` line itself is not counted, so writing it changes nothing. Words are
whitespace-separated tokens of markdown cells (a formula counts by its tokens: slower to read
than prose, and the rule stays simple); code lines are the non-blank lines of code cells. Stated
times are rounded up to 5 minutes (:func:`round_minutes`); every lesson's core must come to at
most ``CORE_BUDGET_MINUTES`` (one sitting; tested).
``--write-study`` writes them into the manifest (``study_min``, ``exercises``) and regenerates
the README course map's study-time column and each lesson's ``**Study time:**`` line.

``--markdown`` prints a table of the measured times. Exits non-zero if a notebook, a test run or
a check fails.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import course  # noqa: E402
from _course import MANIFEST, ROOT, course_notebooks, lesson_notebooks, lessons  # noqa: E402
from course import RUN_LINE_RE, STUDY_LINE_RE  # noqa: E402
from execute_notebooks import execute  # noqa: E402

# ---------------------------------------------------------------------------- run times


def shown(path: Path) -> str:
    """``path`` relative to the repository when it is inside it, else as given (never raises)."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def round_up(seconds: float) -> int:
    """A stated run time: ``seconds`` rounded up to a whole second below 10 s, to 5 s below
    60 s, to 10 s above: 3.2 -> 4, 21 -> 25, 62 -> 70. Never less than 1."""
    if seconds < 0 or not math.isfinite(seconds):
        raise ValueError(f"seconds must be a finite number >= 0, got {seconds!r}")
    step = 1 if seconds <= 10 else 5 if seconds <= 60 else 10
    return max(1, math.ceil(seconds / step) * step)


def header_seconds(notebook: nbformat.NotebookNode) -> int | None:
    """The run time stated in the notebook's first cell (or the notes cells that continue it:
    ``course.header_cells``), or None if it states none."""
    if not notebook.cells:
        return None
    cell = course.header_cell(notebook, RUN_LINE_RE)
    return int(RUN_LINE_RE.search(cell.source).group(2)) if cell is not None else None


def set_header_seconds(notebook: nbformat.NotebookNode, seconds: int) -> None:
    """Write ``seconds`` into the first cell's run-time line (ValueError if it has none)."""
    if header_seconds(notebook) is None:
        raise ValueError("the first cell has no '**Estimated run time:** about N s' line")
    cell = course.header_cell(notebook, RUN_LINE_RE)
    cell.source = RUN_LINE_RE.sub(lambda m: f"{m.group(1)}{seconds}{m.group(3)}", cell.source, 1)


def manifest_key(path: Path, root: Path = ROOT) -> tuple[str, str] | None:
    """``(stem, "run_s")`` for a lesson of the manifest at ``root``, ``(stem, "solutions_run_s")``
    for its worked solutions, None for a notebook the manifest does not list."""
    path = Path(path).resolve()
    notebooks = (Path(root) / "notebooks").resolve()
    for lesson in lessons(root):
        if path == (notebooks / lesson.file):
            return lesson.stem, "run_s"
        if lesson.solutions and path == (notebooks / "solutions" / lesson.file):
            return lesson.stem, "solutions_run_s"
    return None


def _toml_value(value) -> str:
    if isinstance(value, list):
        return "[" + ", ".join(str(v) for v in value) + "]"
    return str(value)


def set_manifest_values(text: str, stem: str, values: dict) -> str:
    """The manifest ``text`` with the keys of ``values`` set in the ``[[lessons]]`` table of
    ``stem`` (each key's line replaced, or added at the end of the table); the rest, comments
    included, kept as it is. ValueError if no table has that stem."""
    tables = re.split(r"(?m)^(?=\[\[lessons\]\])", text)
    found = [i for i, t in enumerate(tables) if re.search(rf'(?m)^stem = "{re.escape(stem)}"$', t)]
    if len(found) != 1:
        raise ValueError(
            f"{MANIFEST}: {len(found)} [[lessons]] tables with stem {stem!r}, expected 1"
        )
    table = tables[found[0]]
    for key, value in values.items():
        line = f"{key} = {_toml_value(value)}"
        table, count = re.subn(rf"(?m)^{key} = .*$", line, table)
        if not count:
            body = table.rstrip("\n")
            table = f"{body}\n{line}\n" + table[len(body) + 1 :]
    tables[found[0]] = table
    return "".join(tables)


def update_manifest(values: dict[str, dict], root: Path = ROOT) -> None:
    """Set ``{stem: {key: value}}`` in the manifest at ``root``, then regenerate what states
    them (``scripts/course.py --write``); RuntimeError naming what could not be written."""
    path = Path(root) / MANIFEST
    text = path.read_text(encoding="utf-8")
    for stem, keys in values.items():
        text = set_manifest_values(text, stem, keys)
    path.write_text(text, encoding="utf-8")
    problems = course.write(root)
    if problems:
        raise RuntimeError("scripts/course.py --write: " + "; ".join(problems))


def stated_seconds(path: Path, root: Path = ROOT) -> int | None:
    """The run time the course states for ``path``: the manifest's, or (a notebook it does not
    list) the notebook header's."""
    key = manifest_key(path, root)
    if key is None:
        return header_seconds(nbformat.read(path, as_version=4))
    lesson = next(x for x in lessons(root) if x.stem == key[0])
    return getattr(lesson, key[1])


def write_times(measured: dict[Path, float], root: Path = ROOT) -> None:
    """Write each rounded measurement into the manifest at ``root``, with each lesson's study
    time (then regenerate the README and the headers), or into the header of a notebook the
    manifest does not list."""
    values: dict[str, dict] = {}
    for path, seconds in measured.items():
        key = manifest_key(path, root)
        if key is None:
            notebook = nbformat.read(path, as_version=4)
            set_header_seconds(notebook, round_up(seconds))
            nbformat.write(notebook, path)
        else:
            values.setdefault(key[0], {})[key[1]] = round_up(seconds)
            if key[1] == "run_s":  # its study time too: it needs no run, and a new lesson has none
                times = study_time(nbformat.read(path, as_version=4))
                values[key[0]].update(study_min=times.stated(), exercises=times.exercises)
    if values:
        update_manifest(values, root)


def check_times(measured: dict[Path, float], tolerance: float, root: Path = ROOT) -> list[str]:
    """Measurements more than ``tolerance`` (a fraction) away from the stated time (a second of
    slack for the short ones), and notebooks without a stated time."""
    problems = []
    for path, seconds in measured.items():
        stated = stated_seconds(path, root)
        if stated is None:
            problems.append(f"{shown(path)}: no run time stated (manifest or header)")
        elif abs(seconds - stated) > tolerance * stated + 1:
            problems.append(f"{shown(path)}: measured {seconds:.1f} s, the course says {stated} s")
    return problems


# ---------------------------------------------------------------------------- study times

WORDS_PER_MINUTE = 100
CODE_LINES_PER_MINUTE = 6.5
MINUTES_PER_EXERCISE = 10
CORE_BUDGET_MINUTES = 45  # one sitting, by the rule above

CORE, EXERCISES, OPTIONAL = "core", "exercises", "optional"

_HEADING_RE = re.compile(r"^(#{2,3}) (.*)$")
_EXERCISE_RE = re.compile(r"^(\*\*\d+\.|\d+\. \*\*)")
# a word has a letter or a digit: table pipes, rules and bullets do not count
_IS_WORD = re.compile(r"\w")


def round_minutes(minutes: float) -> int:
    """A stated study time: ``minutes`` rounded up to a multiple of 5 (at least 5)."""
    if minutes < 0 or not math.isfinite(minutes):
        raise ValueError(f"minutes must be a finite number >= 0, got {minutes!r}")
    return max(5, 5 * math.ceil(minutes / 5 - 1e-9))


_OPTIONAL_TITLES = ("going deeper", "optional")


def _first_heading(source: str) -> tuple[int, str] | None:
    """(level, lower-case title) of the first ``##``/``###`` heading of a markdown cell."""
    for line in source.splitlines():
        match = _HEADING_RE.match(line)
        if match:
            return len(match.group(1)), match.group(2).strip().lower()
    return None


def _next_part(current: str, optional_level: int, heading: tuple[int, str]) -> tuple[str, int]:
    """The part (and the optional section's level) after a cell opening with ``heading``."""
    level, title = heading
    if title.startswith("exercises"):
        return EXERCISES, optional_level
    if title.startswith(_OPTIONAL_TITLES):
        if current != OPTIONAL or level < optional_level:
            return OPTIONAL, level
        return current, optional_level
    closes_optional = current == OPTIONAL and level <= optional_level
    if closes_optional or (current == EXERCISES and level == 2):
        return CORE, optional_level
    return current, optional_level


def cell_parts(notebook) -> list[str]:
    """The part of every cell, in order: ``"core"``, ``"exercises"`` or ``"optional"``."""
    parts, current, optional_level = [], CORE, 0
    for cell in notebook.cells:
        if cell.cell_type == "markdown":
            if cell.source.lstrip().startswith("**Next:**"):
                current = CORE
            heading = _first_heading(cell.source)
            if heading is not None:  # a cell's first heading decides
                current, optional_level = _next_part(current, optional_level, heading)
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

    def stated(self) -> list[int]:
        """The manifest's ``study_min``: [read and run, with the exercises, optional part (0:
        none)], each rounded up by :func:`round_minutes`."""
        optional = self.optional_words or self.optional_code_lines
        return [
            round_minutes(self.core_minutes),
            round_minutes(self.core_minutes + self.exercise_minutes),
            round_minutes(self.optional_minutes) if optional else 0,
        ]


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
            counts[part][0] += sum(1 for w in " ".join(prose).split() if _IS_WORD.search(w))
        elif cell.cell_type == "code":
            counts[part][1] += sum(1 for line in cell.source.splitlines() if line.strip())
    return StudyTime(
        words=counts[CORE][0],
        code_lines=counts[CORE][1],
        exercises=exercises,
        optional_words=counts[OPTIONAL][0],
        optional_code_lines=counts[OPTIONAL][1],
    )


def write_study_times(paths: list[Path], root: Path = ROOT) -> dict[Path, list[int]]:
    """Write each lesson's study time into the manifest at ``root`` (``study_min``,
    ``exercises``), then regenerate the README course map and the lessons' headers; return the
    minutes written for each path. ValueError for a notebook the manifest does not list as a
    lesson."""
    values, written = {}, {}
    for path in paths:
        key = manifest_key(path, root)
        if key is None or key[1] != "run_s":
            raise ValueError(f"{shown(path)}: not a lesson of {MANIFEST}")
        times = study_time(nbformat.read(path, as_version=4))
        written[path] = times.stated()
        values[key[0]] = {"study_min": times.stated(), "exercises": times.exercises}
    update_manifest(values, root)
    return written


def study_problems(root: Path = ROOT) -> list[str]:
    """Lessons whose study time in the manifest is not the one their content gives."""
    problems = []
    for lesson in lessons(root):
        times = study_time(nbformat.read(lesson.path(root), as_version=4))
        stated = (list(lesson.study_min or []), lesson.exercises)
        if stated != (times.stated(), times.exercises):
            problems.append(
                f"{lesson.file}: the manifest says {stated[0]} min, {stated[1]} exercises; its "
                f"content gives {times.stated()} min, {times.exercises} exercises "
                "(python scripts/time_notebooks.py --study --write-study)"
            )
    return problems


def print_study_times(paths: list[Path]) -> None:
    """One line per notebook: minutes by the rule, unrounded, and what it holds."""
    print("study time (min): read and run | with exercises | optional part")
    for path in paths:
        times = study_time(nbformat.read(path, as_version=4))
        print(
            f"{times.core_minutes:6.1f} | {times.core_minutes + times.exercise_minutes:6.1f} | "
            f"{times.optional_minutes:5.1f}  {shown(path)}  ({times.words} words, "
            f"{times.code_lines} code lines, {times.exercises} exercises)"
        )


# ---------------------------------------------------------------------------- the command


def children_cpu_seconds() -> float:
    """User + system CPU time of this process's finished children (the kernels)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def time_command(label: str, command: list[str]) -> tuple[float, bool]:
    """Run ``command`` from the repository root; print its time and pytest's summary line."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else result.stderr.strip()[-200:]
    print(f"{seconds:7.1f} s  {label}  ({summary})", flush=True)
    return seconds, result.returncode == 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    parser.add_argument("--no-notebooks", action="store_true", help="skip the notebooks")
    parser.add_argument("--no-tests", action="store_true", help="skip `pytest tests -q`")
    parser.add_argument(
        "--suite", action="store_true", help="also time the whole suite: `pytest` (tests + nbval)"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print a table of the measured run times"
    )
    action = parser.add_mutually_exclusive_group()
    action.add_argument(
        "--write",
        action="store_true",
        help="write the run times into the manifest (and what it generates)",
    )
    action.add_argument(
        "--check", action="store_true", help="fail if a measurement is off the stated run time"
    )
    parser.add_argument(
        "--study",
        action="store_true",
        help="print the study times (default: of every lesson) and run nothing",
    )
    parser.add_argument(
        "--write-study",
        action="store_true",
        help="with --study: write them into the manifest (and what it generates)",
    )
    parser.add_argument(
        "--tolerance",
        type=float,
        default=0.5,
        help="--check: allowed relative distance from the stated time (default 0.5)",
    )
    parser.add_argument(
        "--clock",
        choices=("wall", "cpu"),
        default="wall",
        help="which time --write and --check use (default wall)",
    )
    return parser


def time_notebooks(paths: list[Path], timeout: int, clock: str) -> tuple[dict[Path, float], bool]:
    """Execute each notebook (without writing); return its run time on ``clock`` ("wall" or
    "cpu") by path, and whether every notebook ran."""
    ok = True
    measured: dict[Path, float] = {}
    total = 0.0
    for path in paths:
        cpu_before = children_cpu_seconds()
        try:
            seconds = execute(path, timeout, write=False)
        except Exception as error:  # report every failing notebook, not only the first
            ok = False
            print(f"FAILED {shown(path)}: {type(error).__name__}", flush=True)
            continue
        cpu = children_cpu_seconds() - cpu_before
        measured[path] = cpu if clock == "cpu" else seconds
        total += seconds
        print(f"{seconds:7.1f} s  ({cpu:5.1f} s CPU)  {shown(path)}", flush=True)
    print(f"{total:7.1f} s  total for {len(measured)} notebook(s) ({total / 60:.1f} min)")
    return measured, ok


def _write_or_check(args: argparse.Namespace, measured: dict[Path, float]) -> bool:
    """``--write`` the measured times, or ``--check`` the stated ones; False if a check fails."""
    if args.write and measured:
        write_times(measured)
        print(f"wrote the run times of {len(measured)} notebook(s) (manifest, README, headers)")
    if args.check and measured:
        problems = check_times(measured, args.tolerance)
        for problem in problems:
            print("CHECK FAILED " + problem)
        return not problems
    return True


def _time_tests(args: argparse.Namespace) -> bool:
    """Time the unit tests (unless ``--no-tests``) and the whole suite (``--suite``)."""
    ok = True
    pytest = [sys.executable, "-m", "pytest"]
    if not args.no_tests:
        ok &= time_command("unit tests: pytest tests -q", [*pytest, "tests", "-q"])[1]
    if args.suite:
        ok &= time_command("whole suite: pytest -q", [*pytest, "-q"])[1]
    return ok


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.study:
        paths = [p.resolve() for p in args.notebooks] or lesson_notebooks()
        print_study_times(paths)
        if args.write_study:
            write_study_times(paths)
            print(f"wrote the study times of {len(paths)} notebook(s) (manifest, README, headers)")
        return 0
    os.environ["PYTHONHASHSEED"] = "0"  # as execute_notebooks.py: inherited by the kernels
    ok = True
    measured: dict[Path, float] = {}
    if not args.no_notebooks:
        paths = [p.resolve() for p in args.notebooks] or course_notebooks()
        measured, ok = time_notebooks(paths, args.timeout, args.clock)
    ok &= _write_or_check(args, measured)
    ok &= _time_tests(args)
    if args.markdown and measured:
        print(f"\n| notebook | run time ({args.clock}) |\n|---|---|")
        for path, seconds in measured.items():
            print(f"| {path.stem} | {seconds:.0f} s |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
