"""Give every lesson notebook the course's live-slide settings (notebook metadata ``rise``).

Usage::

    python scripts/rise_config.py                        # every lesson notebook
    python scripts/rise_config.py notebooks/06_*.ipynb   # some of them
    python scripts/rise_config.py --check                # report, change nothing (exit 1 if not set)

jupyterlab-rise (the live slideshow, ``Alt+R`` in JupyterLab) merges its settings from its
defaults, the user's JupyterLab settings and then the notebook's top-level ``metadata.rise``.
The course sets there:

- ``theme: "white"``: reveal.js's white theme, whose fonts ship with the extension; the default
  ``"simple"`` theme imports Lato and News Cycle from ``fonts.googleapis.com`` (an offline
  classroom logs the failed requests);
- ``scroll: true``: a slide taller than the window scrolls, so a long output can be reached;
- ``start_slideshow_at: "beginning"``: the slideshow opens on the title slide, not on the cell
  that happens to be selected (after running the set-up cell that is the first section);
- ``transition: "none"``: no sliding animation on a projector.

Font sizes are in ``notebooks/rise.css`` (jupyterlab-rise loads ``rise.css`` from the notebook's
folder). The script is idempotent and touches nothing but ``metadata.rise``: cells, outputs and
every other key stay as they are, and a notebook already set is not rewritten.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, lesson_notebooks  # noqa: E402

RISE_SETTINGS = {
    "theme": "white",
    "scroll": True,
    "start_slideshow_at": "beginning",
    "transition": "none",
}

__all__ = ["RISE_SETTINGS", "configure", "main"]


def configure(notebook: dict) -> bool:
    """Set the course's ``metadata.rise`` keys (others an author added are kept); True if changed."""
    metadata = notebook.setdefault("metadata", {})
    current = metadata.get("rise")
    wanted = {**(current or {}), **RISE_SETTINGS}
    if current == wanted:
        return False
    metadata["rise"] = wanted
    return True


def _write(notebook: dict, path: Path) -> None:
    # the layout nbformat writes (indent 1, UTF-8), without re-sorting the cells' metadata keys
    text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if not set")
    args = parser.parse_args(argv)
    paths = [p.resolve() for p in args.notebooks] or lesson_notebooks()
    missing = []
    for path in paths:
        name = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        notebook = json.loads(path.read_text(encoding="utf-8"))
        if configure(notebook):
            missing.append(name)
            if not args.check:
                _write(notebook, path)
            print(f"{name}: {'would set' if args.check else 'set'} metadata.rise")
        else:
            print(f"{name}: already set")
    if args.check and missing:
        print("not set: " + ", ".join(missing) + " (run scripts/rise_config.py)")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
