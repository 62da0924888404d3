"""Time the course: each notebook's execution, their total, and the unit tests; keep the run
times stated in the README course map and in each notebook's header in step with one measurement.

Usage::

    python scripts/time_notebooks.py                       # every notebook, then `pytest tests -q`
    python scripts/time_notebooks.py notebooks/0[01]_*.ipynb --no-tests
    python scripts/time_notebooks.py --write --no-tests    # measure, then write README + headers
    python scripts/time_notebooks.py --check --no-tests    # measure, fail if the stated times are off
    python scripts/time_notebooks.py --suite --markdown    # also the README's whole `pytest`
    python scripts/time_notebooks.py --study               # study times of every lesson (no run)
    python scripts/time_notebooks.py --study --write-study # ... written into README + headers

Notebooks run as ``scripts/execute_notebooks.py --check-only`` runs them (fresh kernel, top to
bottom, nothing executed is written). For each notebook the script prints the wall-clock time and
the CPU time of its kernel; on a shared machine the CPU time is the steadier of the two.

Where a run time is stated (one measurement, two places):

- the notebook's first cell, the line ``**Estimated run time:** about N s on a laptop CPU...``
  (anything after "CPU", such as "(it trains 12 small models)", is kept);
- for the lessons, the last column of the README course map, ``about N s``.

``--write`` rounds each measurement up (:func:`round_up`) and writes both places; ``--check``
fails when the two places disagree or a measurement is not within ``--tolerance`` of what they
state. ``--clock cpu`` uses the kernel's CPU time instead of the wall clock (for a busy machine).
Timings depend on the machine and its load: write them on an otherwise idle machine.

Study times (``--study``, rule in ``scripts/study_time.py``: prose at 120 words per minute, code
at 8 lines per minute, 10 minutes per exercise, an optional "Going deeper" part counted apart)
depend only on the notebooks' content: nothing is executed. ``--write-study`` writes them into
the first cell of each notebook (a ``**Study time:** ...`` line just before the run-time line)
and, for lessons, into the course map's study-time column (the one before the run time); it
leaves every run time as it is.
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
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, course_notebooks, lesson_notebooks  # noqa: E402
from execute_notebooks import execute  # noqa: E402
from study_time import STUDY_LINE_RE, study_time  # noqa: E402

README = ROOT / "README.md"

# "**Estimated run time:** about 50 s on a laptop CPU." (group 2: the seconds)
HEADER_RE = re.compile(r"(\*\*Estimated run time:\*\* about )(\d+)( s on a laptop CPU)")
# a course-map row: "| 10 | [mini_transformer](notebooks/10_mini_transformer.ipynb) | ... | about 50 s |"
ROW_RE = re.compile(
    r"^(\| \d\d \| \[[^\]]*\]\(notebooks/(?P<file>\d\d_\w+\.ipynb)\) \|.*\| )(?P<time>[^|]*?)( \|)$",
    re.MULTILINE,
)
README_TIME_RE = re.compile(r"about (\d+) s")


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
    """The run time stated in the notebook's first cell, or None if it states none."""
    if not notebook.cells:
        return None
    match = HEADER_RE.search(notebook.cells[0].source)
    return int(match.group(2)) if match else None


def set_header_seconds(notebook: nbformat.NotebookNode, seconds: int) -> None:
    """Write ``seconds`` into the first cell's run-time line (ValueError if it has none)."""
    if header_seconds(notebook) is None:
        raise ValueError("the first cell has no '**Estimated run time:** about N s' line")
    cell = notebook.cells[0]
    cell.source = HEADER_RE.sub(lambda m: f"{m.group(1)}{seconds}{m.group(3)}", cell.source, 1)


def readme_seconds(readme: str) -> dict[str, int | None]:
    """Course-map rows of the README: notebook file name -> stated seconds (None: unreadable)."""
    times: dict[str, int | None] = {}
    for row in ROW_RE.finditer(readme):
        match = README_TIME_RE.fullmatch(row.group("time").strip())
        times[row.group("file")] = int(match.group(1)) if match else None
    return times


def set_readme_seconds(readme: str, file_name: str, seconds: int) -> str:
    """``readme`` with the run time of ``file_name``'s course-map row set to ``about N s``."""
    count = 0

    def replace(row: re.Match) -> str:
        nonlocal count
        if row.group("file") != file_name:
            return row.group(0)
        count += 1
        return f"{row.group(1)}about {seconds} s{row.group(4)}"

    result = ROW_RE.sub(replace, readme)
    if count != 1:
        raise ValueError(f"the README course map has {count} rows for {file_name}, expected 1")
    return result


def set_header_study(notebook: nbformat.NotebookNode, line: str) -> None:
    """Put the study-time ``line`` into the first cell: replace the one there, else insert it as
    its own paragraph just before the run-time line (ValueError if there is neither)."""
    cell = notebook.cells[0] if notebook.cells else None
    if cell is not None and STUDY_LINE_RE.search(cell.source):
        cell.source = STUDY_LINE_RE.sub(lambda _: line, cell.source, 1)
        return
    if cell is None or header_seconds(notebook) is None:
        raise ValueError("the first cell has no '**Estimated run time:** about N s' line")
    start = HEADER_RE.search(cell.source).start()
    cell.source = f"{cell.source[:start]}{line}\n\n{cell.source[start:]}"


def _cells(row: str) -> list[str]:
    return row.strip()[1:-1].split("|")


def set_readme_study(readme: str, file_name: str, text: str) -> str:
    """``readme`` with ``file_name``'s course-map cell under the header "study time ..." set to
    ``text``; a row one cell short of the header (written before the column existed) gets the
    cell inserted there. ValueError if the course map has no study-time column."""
    header = re.search(r"^\| # \| notebook \|.*\|$", readme, re.MULTILINE)
    columns = [c.strip().lower() for c in _cells(header.group(0))] if header else []
    where = [i for i, c in enumerate(columns) if c.startswith("study time")]
    if not where:
        raise ValueError("the README course map has no 'study time' column")
    count = 0

    def replace(row: re.Match) -> str:
        nonlocal count
        if row.group("file") != file_name:
            return row.group(0)
        count += 1
        cells = _cells(row.group(0))
        if len(cells) == len(columns) - 1:
            cells.insert(where[0], "")
        elif len(cells) != len(columns):
            raise ValueError(f"the course-map row of {file_name} has {len(cells)} cells")
        cells[where[0]] = f" {text} "
        return f"|{'|'.join(cells)}|"

    result = ROW_RE.sub(replace, readme)
    if count != 1:
        raise ValueError(f"the README course map has {count} rows for {file_name}, expected 1")
    return result


def write_study_times(
    paths: list[Path], readme_path: Path = README, root: Path = ROOT
) -> dict[Path, str]:
    """Write each notebook's study time into its header and, for lessons of the repository at
    ``root``, into the README course map; return the README cell written for each path."""
    readme = readme_path.read_text(encoding="utf-8") if readme_path.exists() else ""
    written = {}
    for path in paths:
        notebook = nbformat.read(path, as_version=4)
        times = study_time(notebook)
        before = nbformat.writes(notebook)
        set_header_study(notebook, times.header_line())
        if nbformat.writes(notebook) != before:
            nbformat.write(notebook, path)
        written[path] = times.readme_cell()
        if in_course_map(path, root):
            readme = set_readme_study(readme, path.name, written[path])
    if readme:
        readme_path.write_text(readme, encoding="utf-8")
    return written


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


def in_course_map(path: Path, root: Path = ROOT) -> bool:
    """Whether ``path`` is a lesson (``notebooks/NN_*.ipynb``) of the repository at ``root``."""
    return path.resolve().parent == (root / "notebooks").resolve()


def disagreements(paths: list[Path], readme: str, root: Path = ROOT) -> list[str]:
    """Where the README course map and the notebooks' headers disagree (empty: they agree)."""
    table = readme_seconds(readme)
    problems = []
    for path in paths:
        stated = header_seconds(nbformat.read(path, as_version=4))
        if stated is None:
            problems.append(f"{shown(path)}: no '**Estimated run time:** about N s' in cell 0")
        if not in_course_map(path, root):
            continue
        if path.name not in table:
            problems.append(f"README course map: no row for {path.name}")
        elif table[path.name] != stated:
            problems.append(
                f"{path.name}: README says {table[path.name]} s, the notebook's header {stated} s"
            )
    return problems


def write_times(measured: dict[Path, float], readme_path: Path = README, root: Path = ROOT) -> None:
    """Write each rounded measurement into its notebook's header and, for lessons of the
    repository at ``root``, into the README course map."""
    readme = readme_path.read_text(encoding="utf-8") if readme_path.exists() else ""
    for path, seconds in measured.items():
        stated = round_up(seconds)
        notebook = nbformat.read(path, as_version=4)
        set_header_seconds(notebook, stated)
        nbformat.write(notebook, path)
        if in_course_map(path, root):
            readme = set_readme_seconds(readme, path.name, stated)
    if readme:
        readme_path.write_text(readme, encoding="utf-8")


def check_times(
    measured: dict[Path, float], tolerance: float, readme_path: Path = README, root: Path = ROOT
) -> list[str]:
    """Disagreements between README and headers, and measurements more than ``tolerance``
    (a fraction) away from the stated time (a second of slack for the short ones)."""
    readme = readme_path.read_text(encoding="utf-8") if readme_path.exists() else ""
    problems = disagreements(list(measured), readme, root)
    for path, seconds in measured.items():
        stated = header_seconds(nbformat.read(path, as_version=4))
        if stated is not None and abs(seconds - stated) > tolerance * stated + 1:
            problems.append(f"{shown(path)}: measured {seconds:.1f} s, the header says {stated} s")
    return problems


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
        "--write", action="store_true", help="write the run times into README and headers"
    )
    action.add_argument(
        "--check", action="store_true", help="fail if README/headers disagree or are off"
    )
    parser.add_argument(
        "--study",
        action="store_true",
        help="print the study times (default: of every lesson) and run nothing",
    )
    parser.add_argument(
        "--write-study",
        action="store_true",
        help="with --study: write them into the headers and the README course map",
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
        print(f"wrote the run times of {len(measured)} notebook(s) (headers and README)")
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
            print(f"wrote the study times of {len(paths)} notebook(s) (headers and README)")
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
