"""Re-execute course notebooks in place, top to bottom, each in one fresh kernel.

Usage::

    python scripts/execute_notebooks.py                      # every notebook, in course order
    python scripts/execute_notebooks.py notebooks/03_*.ipynb  # some of them
    python scripts/execute_notebooks.py --timeout 300 --check-only

Each notebook runs with its working directory set to its own folder, a fixed hash seed and the
``python3`` kernel, so that committed outputs are what a learner gets on a fresh run. The script
prints each notebook's run time and the total, and exits non-zero if any notebook fails.
``--check-only`` executes without writing (a quick "does it still run?").
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]


def course_notebooks() -> list[Path]:
    """Every notebook of the course: the lessons in order, then the worked solutions."""
    lessons = sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))
    solutions = sorted((ROOT / "notebooks" / "solutions").glob("[0-9][0-9]_*.ipynb"))
    return lessons + solutions


def execute(path: Path, timeout: int, write: bool) -> float:
    """Execute one notebook in a fresh kernel; return its wall-clock run time in seconds."""
    notebook = nbformat.read(path, as_version=4)
    notebook.metadata["kernelspec"] = {
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "name": "python3",
    }
    client = NotebookClient(
        notebook,
        timeout=timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
        record_timing=False,  # no timestamps in cell metadata: clean diffs
    )
    start = time.perf_counter()
    client.execute()
    seconds = time.perf_counter() - start
    if write:
        nbformat.write(notebook, path)
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--timeout", type=int, default=600, help="seconds per cell (default 600)")
    parser.add_argument("--check-only", action="store_true", help="execute but do not write")
    args = parser.parse_args(argv)

    os.environ["PYTHONHASHSEED"] = "0"  # inherited by the kernels
    paths = [p.resolve() for p in args.notebooks] or course_notebooks()
    total, failed = 0.0, []
    for path in paths:
        try:
            seconds = execute(path, args.timeout, write=not args.check_only)
        except Exception as error:  # report every failing notebook, not only the first
            failed.append(path.name)
            print(
                f"FAILED {path.relative_to(ROOT)}: {type(error).__name__}: "
                f"{str(error).strip().splitlines()[-1] if str(error).strip() else ''}"
            )
            continue
        total += seconds
        print(f"{seconds:7.1f} s  {path.relative_to(ROOT)}", flush=True)
    print(f"{total:7.1f} s  total for {len(paths) - len(failed)} notebook(s)")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
