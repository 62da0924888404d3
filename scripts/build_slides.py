"""Build offline reveal.js slides for the course notebooks (lecture mode).

Usage::

    python scripts/build_slides.py                         # every notebook -> _build/slides/
    python scripts/build_slides.py notebooks/03_*.ipynb    # some of them
    python scripts/build_slides.py --out /tmp/slides

Each notebook becomes ``<name>.slides.html`` (solutions under ``solutions/``) next to an
``index.html`` that lists the decks; reveal.js and MathJax are copied into ``_static/`` from
installed packages, so the slides work with no network. Cells are grouped by their
``metadata.slideshow.slide_type`` (see ``scripts/tag_slides.py``); a notebook not tagged yet is
tagged in memory with the same rules, never on disk. Open ``index.html`` in a browser; press
``S`` for the speaker view, ``F`` for full screen, ``Esc`` for the overview.
"""

from __future__ import annotations

import argparse
import html
import sys
import time
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _offline_html import (  # noqa: E402
    EXTRA_PAGES,
    ROOT,
    course_notebooks,
    export_page,
    external_assets,
    markdown_notebook,
    notebook_title,
    page_name,
    vendor_assets,
)
from tag_slides import tag_notebook  # noqa: E402

DEFAULT_OUT = ROOT / "_build" / "slides"

__all__ = ["build_slides", "main"]


def _index_page(decks: list[tuple[str, str]]) -> str:
    rows = "\n".join(
        f'<li><a href="{html.escape(href)}">{html.escape(title)}</a></li>' for title, href in decks
    )
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8" />
<title>Position in Transformers: lecture slides</title>
<style>body {{ font-family: sans-serif; max-width: 820px; margin: 2em auto; line-height: 1.5; }}
li {{ margin: 0.3em 0; }} kbd {{ border: 1px solid #999; border-radius: 3px; padding: 0 4px; }}</style>
</head><body>
<h1>Position in Transformers: lecture slides</h1>
<p>One deck per notebook, built from its cells and committed outputs. Keys: <kbd>Space</kbd>
next, <kbd>S</kbd> speaker view, <kbd>F</kbd> full screen, <kbd>Esc</kbd> overview. To run
code live, open the notebook in JupyterLab instead (RISE extension).</p>
<ul>
{rows}
</ul>
</body></html>
"""


def build_slides(notebooks: list[Path], out_dir: Path, root: Path = ROOT) -> list[Path]:
    """Write one deck per notebook, an index and the glossary pages (from ``root/notebooks``)
    into ``out_dir``; return the pages written."""
    out_dir = Path(out_dir)
    static = vendor_assets(out_dir, reveal=True)
    pages, decks = [], []
    for path in notebooks:
        notebook = nbformat.read(path, as_version=4)
        tag_notebook(notebook)  # in memory only
        name = page_name(path)
        page = export_page(notebook, out_dir / f"{name}.slides.html", static, kind="slides")
        pages.append(page)
        title = notebook_title(notebook) or path.stem
        prefix = "Solutions: " if name.parent.name == "solutions" else ""
        decks.append((prefix + title, page.relative_to(out_dir).as_posix()))
    for name in EXTRA_PAGES:  # notebooks link to them; a plain page, not a deck
        source = root / "notebooks" / f"{name}.md"
        if source.exists():
            pages.append(
                export_page(
                    markdown_notebook(source), out_dir / f"{name}.html", static, kind="site"
                )
            )
    index = out_dir / "index.html"
    index.write_text(_index_page(decks), encoding="utf-8")
    pages.append(index)
    for page in pages:
        remote = external_assets(page.read_text(encoding="utf-8"))
        if remote:
            raise RuntimeError(f"{page} would load assets from the network: {remote}")
    return pages


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT}")
    args = parser.parse_args(argv)

    start = time.perf_counter()
    notebooks = [p.resolve() for p in args.notebooks] or course_notebooks()
    build_slides(notebooks, args.out)
    seconds = time.perf_counter() - start
    print(f"{len(notebooks)} deck(s) in {seconds:.1f} s: {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
