"""Time the course: each notebook's execution, their total, and the unit tests.

Usage::

    python scripts/time_notebooks.py                       # every notebook, then `pytest tests -q`
    python scripts/time_notebooks.py notebooks/0[01]_*.ipynb --no-tests
    python scripts/time_notebooks.py --suite --markdown    # also the README's whole `pytest`

Notebooks run as ``scripts/execute_notebooks.py --check-only`` runs them (fresh kernel, top to
bottom, nothing written). The unit tests and the whole suite run as subprocesses from the
repository root. ``--markdown`` adds a table of minutes per notebook for the README course map.
Exits non-zero if a notebook or a test run fails. Timings depend on the machine and its load:
measure on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from execute_notebooks import ROOT, course_notebooks, execute  # noqa: E402


def time_command(label: str, command: list[str]) -> tuple[float, bool]:
    """Run ``command`` from the repository root; print its time and pytest's summary line."""
    start = time.perf_counter()
    result = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    lines = [line for line in result.stdout.splitlines() if line.strip()]
    summary = lines[-1].strip("= ") if lines else result.stderr.strip()[-200:]
    print(f"{seconds:7.1f} s  {label}  ({summary})", flush=True)
    return seconds, result.returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    parser.add_argument("--no-notebooks", action="store_true", help="skip the notebooks")
    parser.add_argument("--no-tests", action="store_true", help="skip `pytest tests -q`")
    parser.add_argument(
        "--suite", action="store_true", help="also time the whole suite: `pytest` (tests + nbval)"
    )
    parser.add_argument(
        "--markdown", action="store_true", help="print a table of minutes per notebook"
    )
    args = parser.parse_args(argv)

    os.environ["PYTHONHASHSEED"] = "0"  # as execute_notebooks.py: inherited by the kernels
    ok = True
    times: list[tuple[Path, float]] = []
    if not args.no_notebooks:
        paths = [p.resolve() for p in args.notebooks] or course_notebooks()
        for path in paths:
            name = path.relative_to(ROOT)
            try:
                seconds = execute(path, args.timeout, write=False)
            except Exception as error:  # report every failing notebook, not only the first
                ok = False
                print(f"FAILED {name}: {type(error).__name__}", flush=True)
                continue
            times.append((path, seconds))
            print(f"{seconds:7.1f} s  {name}", flush=True)
        total = sum(seconds for _, seconds in times)
        print(f"{total:7.1f} s  total for {len(times)} notebook(s) ({total / 60:.1f} min)")

    pytest = [sys.executable, "-m", "pytest"]
    if not args.no_tests:
        ok &= time_command("unit tests: pytest tests -q", [*pytest, "tests", "-q"])[1]
    if args.suite:
        ok &= time_command("whole suite: pytest -q", [*pytest, "-q"])[1]

    if args.markdown and times:
        print("\n| notebook | run time |\n|---|---|")
        for path, seconds in times:
            print(f"| {path.stem} | {seconds / 60:.1f} min ({seconds:.0f} s) |")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
