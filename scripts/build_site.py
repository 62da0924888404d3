"""Build a static HTML version of the whole course, for reading without Jupyter.

Usage::

    python scripts/build_site.py                        # everything -> _build/site/
    python scripts/build_site.py notebooks/03_*.ipynb   # some notebooks (plus index and glossary)
    python scripts/build_site.py --out /tmp/site

Writes one page per notebook (lessons, and worked solutions under ``solutions/``) with its
committed outputs, ``glossary.html`` and ``references.html`` from ``notebooks/*.md``, and an
``index.html`` table of contents. Math is typeset in the browser by a MathJax copied into
``_static/`` from an installed package: no page loads anything from the network, which the
build checks before it finishes. Open ``_build/site/index.html`` in a browser.
"""

from __future__ import annotations

import argparse
import os
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
    nav_bar,
    notebook_title,
    page_name,
    vendor_assets,
)

DEFAULT_OUT = ROOT / "_build" / "site"
COURSE_TITLE = "Position in Transformers, from first principles"

__all__ = ["build_site", "main"]


def _rel(target: str, page: str) -> str:
    """The link from page ``page`` to page ``target`` (both relative to the site root)."""
    return Path(os.path.relpath(target, Path(page).parent)).as_posix()


def _nav(page: str, previous: str | None = None, following: str | None = None) -> str:
    links = [
        ("Contents", "index.html"),
        ("Glossary", "glossary.html"),
        ("References", "references.html"),
    ]
    if previous:
        links.append(("\u2190 Previous", previous))
    if following:
        links.append(("Next \u2192", following))
    return nav_bar([(label, _rel(target, page)) for label, target in links])


def _index_markdown(entries: list[tuple[str, str]], extras: list[str]) -> str:
    lessons = [(t, h) for t, h in entries if not h.startswith("solutions/")]
    solutions = [(t, h) for t, h in entries if h.startswith("solutions/")]
    lines = [
        f"# {COURSE_TITLE}",
        "",
        "A static, read-only copy of the course: every notebook with its committed outputs. "
        "To change and run the code, open the notebooks in Jupyter. Terms and symbols: "
        "[glossary](glossary.html); papers and public code: [references](references.html).",
        "",
        "## Lessons",
        "",
        *[f"- [{title}]({href})" for title, href in lessons],
    ]
    if solutions:
        lines += [
            "",
            "## Worked solutions to the exercises",
            "",
            *[f"- [{title}]({href})" for title, href in solutions],
        ]
    if extras:
        lines += [
            "",
            "## Reference pages",
            "",
            *[f"- [{name.capitalize()}]({name}.html)" for name in extras],
        ]
    return "\n".join(lines) + "\n"


def build_site(notebooks: list[Path], out_dir: Path, root: Path = ROOT) -> list[Path]:
    """Write the pages of ``notebooks``, the glossary, the references and an index."""
    out_dir = Path(out_dir)
    static = vendor_assets(out_dir)
    names = [page_name(p).as_posix() + ".html" for p in notebooks]
    pages, entries = [], []
    for i, path in enumerate(notebooks):
        notebook = nbformat.read(path, as_version=4)
        page = names[i]
        previous = names[i - 1] if i > 0 else None
        following = names[i + 1] if i + 1 < len(names) else None
        nav = _nav(page, previous, following)
        pages.append(export_page(notebook, out_dir / page, static, kind="site", nav=nav))
        title = notebook_title(notebook) or Path(path).stem
        entries.append((title, page))
    extras = []
    for name in EXTRA_PAGES:
        source = root / "notebooks" / f"{name}.md"
        if source.exists():
            extras.append(name)
            pages.append(
                export_page(
                    markdown_notebook(source),
                    out_dir / f"{name}.html",
                    static,
                    kind="site",
                    nav=_nav(f"{name}.html"),
                )
            )
    index = nbformat.v4.new_notebook()
    index.cells.append(nbformat.v4.new_markdown_cell(_index_markdown(entries, extras)))
    index.metadata["title"] = COURSE_TITLE
    pages.append(
        export_page(index, out_dir / "index.html", static, kind="site", nav=_nav("index.html"))
    )
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
    pages = build_site(notebooks, args.out)
    seconds = time.perf_counter() - start
    print(f"{len(pages)} page(s) in {seconds:.1f} s: {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
