"""Re-execute course notebooks in place, top to bottom, each in one fresh kernel.

Usage::

    python scripts/execute_notebooks.py                      # every notebook, in course order
    python scripts/execute_notebooks.py notebooks/03_*.ipynb  # some of them
    python scripts/execute_notebooks.py --timeout 300 --check-only

Each notebook runs with its working directory set to its own folder, a fixed hash seed and the
``python3`` kernel, so that committed outputs are what a learner gets on a fresh run. The script
prints each notebook's run time and the total, and exits non-zero if any notebook fails.
``--check-only`` executes without writing (a quick "does it still run?").

Before writing, consecutive stream outputs of a cell are merged and widget model ids are
renumbered, so re-executing an unchanged notebook writes the same bytes (clean diffs). A notebook
outside the repository is accepted too (its path is then printed in full).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, course_notebooks  # noqa: E402


def display_path(path: Path) -> str:
    """``path`` relative to the repository when it lies inside it, else in full."""
    try:
        return str(path.resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


def merge_streams(notebook: nbformat.NotebookNode) -> None:
    """Merge consecutive stream outputs of the same name (stdout, stderr) in every code cell.

    How a kernel splits printed text into messages depends on timing; the merged text does not.
    """
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        merged: list = []
        for output in cell.outputs:
            previous = merged[-1] if merged else None
            if (
                output.output_type == "stream"
                and previous is not None
                and previous.output_type == "stream"
                and previous.name == output.name
            ):
                previous.text += output.text
            else:
                merged.append(output)
        cell.outputs = merged


_MODEL_ID = re.compile(r"(?<![0-9a-f])[0-9a-f]{32}(?![0-9a-f])")


def renumber_widget_ids(notebook: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Replace the random widget model ids by ids derived from their order of appearance.

    ipywidgets names every model with a random uuid4; the saved widget state and the outputs that
    show the widgets refer to the same ids, so a consistent renaming keeps them working.
    """
    state = notebook.metadata.get("widgets", {}).get("application/vnd.jupyter.widget-state+json")
    if not state:
        return notebook
    text = json.dumps(notebook)
    new_ids: dict[str, str] = {}
    for old in state["state"]:  # the saved state lists every model once
        new_ids[old] = hashlib.sha256(f"widget-{len(new_ids)}".encode()).hexdigest()[:32]
    text = _MODEL_ID.sub(lambda match: new_ids.get(match.group(0), match.group(0)), text)
    return nbformat.from_dict(json.loads(text))


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
        merge_streams(notebook)
        nbformat.write(renumber_widget_ids(notebook), path)
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
                f"FAILED {display_path(path)}: {type(error).__name__}: "
                f"{str(error).strip().splitlines()[-1] if str(error).strip() else ''}"
            )
            continue
        total += seconds
        print(f"{seconds:7.1f} s  {display_path(path)}", flush=True)
    print(f"{total:7.1f} s  total for {len(paths) - len(failed)} notebook(s)")
    if failed:
        print("failed: " + ", ".join(failed))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
