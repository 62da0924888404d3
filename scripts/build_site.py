"""Build the course's static site (a searchable book) for reading without Jupyter.

Usage::

    python scripts/build_site.py                  # -> _build/site/, open _build/site/index.html
    python scripts/build_site.py --out /tmp/site
    python scripts/build_site.py --lang zh_CN     # English, and the Chinese edition in zh_CN/
    python scripts/build_site.py --lang ja        # English, and the Japanese edition in ja/
    python scripts/build_site.py --lang en        # the English edition alone

Every edition with catalogues in ``locale/`` is built by default: the English site at the root of
``--out``, each translated edition in a folder named by its language (``zh_CN/index.html``,
``ja/index.html``), from
the notebooks ``scripts/build_translation.py`` writes; every page links to its other editions.

A thin wrapper around ``sphinx-build`` with the configuration in ``docs/conf.py`` (Sphinx, MyST-NB
with execution off, sphinx-book-theme): it stages ``docs/index.md``, the lessons, the worked
solutions, the markdown pages of :data:`PAGES` that exist (glossary, FAQ, references, the guides
for lecturers and maintainers, the lecture plan; never the
speaker notes of ``notebooks/lectures/``) into a temporary source folder, builds into a fresh
folder beside ``--out`` and only then replaces ``--out``: an interrupted build leaves the previous
site intact, and no page of an earlier build survives. Before replacing, it checks that no page
loads anything from the network and that no script or event handler from a notebook reached a
page. Equivalent by hand: copy those files into a folder ``SRC`` and run
``sphinx-build -c docs SRC OUT``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, lesson_notebooks, solution_notebooks  # noqa: E402
from _offline_html import build_replacing, network_loads  # noqa: E402
from build_translation import build_translation  # noqa: E402
from i18n import languages  # noqa: E402

DOCS = ROOT / "docs"
DEFAULT_OUT = ROOT / "_build" / "site"
PAGES = (  # optional markdown pages
    "glossary.md",
    "faq.md",
    "references.md",
    "guide_lecturers.md",
    "guide_maintainers.md",
    "lecture_plan.md",
)
MARKER = ".course-site"  # marks a folder this script built, so that it may replace it

__all__ = ["build_site", "stage_sources", "unsafe_html", "main"]


def stage_sources(root: Path, stage: Path) -> list[Path]:
    """Copy the site's sources from ``root`` (a course checkout) into ``stage``; return them.

    Lessons ``notebooks/NN_*.ipynb``, solutions ``notebooks/solutions/NN_*.ipynb``, the markdown
    pages of :data:`PAGES` that exist, and ``docs/index.md`` (``root``'s own, as a translated
    edition has, else the course's). Nothing else: in particular never ``notebooks/lectures/``
    (speaker notes with the answers).
    """
    notebooks = Path(root) / "notebooks"
    sources = lesson_notebooks(root) + solution_notebooks(root)
    sources += [notebooks / name for name in PAGES if (notebooks / name).is_file()]
    if not any(p.suffix == ".ipynb" for p in sources):
        raise FileNotFoundError(f"no notebooks/NN_*.ipynb under {root}")
    copied = []
    for source in sources:
        target = stage / source.relative_to(notebooks)
        target.parent.mkdir(parents=True, exist_ok=True)
        copied.append(Path(shutil.copy2(source, target)))
        if target.suffix == ".ipynb":
            _pass_alt_texts(target)
    index = Path(root) / "docs" / "index.md"
    index = index if index.is_file() else DOCS / "index.md"
    copied.append(Path(shutil.copy2(index, stage / "index.md")))
    return copied


def _pass_alt_texts(notebook: Path) -> None:
    """Give MyST-NB each figure's text alternative. A figure cell keeps it in ``metadata.alt``,
    the key the offline decks' template reads; MyST-NB reads its image options from
    ``metadata.mystnb.image``, so the staged copy gets it there too."""
    data = json.loads(notebook.read_text(encoding="utf-8"))
    changed = False
    for cell in data["cells"]:
        alt = cell.get("metadata", {}).get("alt")
        if alt:
            options = cell["metadata"].setdefault("mystnb", {})
            options.setdefault("image", {})["alt"] = alt
            changed = True
    if changed:
        notebook.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")


_ARTICLE = re.compile(r'(?is)<article class="bd-article"[^>]*>(.*)</article>')
_UNSAFE = re.compile(
    r"(?is)<script\b(?![^>]*type=\"application/vnd\.jupyter\.widget-state\+json\")[^>]*>"
    r"|<(?:iframe|object|embed|frame|base|meta|link|form)\b[^>]*>"
    r"|<[a-z][^>]*\son[a-z]+\s*=[^>]*>"
    r"|(?:href|src)\s*=\s*[\"']?\s*(?:javascript|vbscript):"
)


def unsafe_html(page: str) -> list[str]:
    """Scripts, event handlers, frames and ``javascript:`` links inside a page's article.

    The article is what notebooks and markdown produce; the theme's own scripts sit outside it.
    """
    match = _ARTICLE.search(page)
    return _UNSAFE.findall(match.group(1)) if match else []


def _check(site: Path) -> int:
    pages = sorted(site.rglob("*.html"))
    problems = network_loads(pages, site)
    for page in pages:
        name = page.relative_to(site).as_posix()
        unsafe = unsafe_html(page.read_text(encoding="utf-8"))
        problems += [f"{name} holds unsafe HTML: {tag[:80]}" for tag in unsafe]
    for edition in [site, *(p for p in site.iterdir() if (p / "searchindex.js").is_file())]:
        if (edition / "lectures").exists() or (edition / "_sources" / "lectures").exists():
            problems.append("the speaker notes (notebooks/lectures/) reached the site")
    if problems:
        raise RuntimeError("the site failed its checks:\n  " + "\n  ".join(problems))
    return len(pages)


def build_site(
    out_dir: Path = DEFAULT_OUT,
    root: Path = ROOT,
    jobs: str = "auto",
    langs: list[str] | None = None,
) -> Path:
    """Build the site of the course at ``root`` into ``out_dir`` (replaced at the end): the
    English edition, and each translated edition of ``langs`` (default: every language with
    catalogues) in ``out_dir/<lang>/``."""
    out_dir = Path(out_dir).resolve()
    translated = [lang for lang in (languages() if langs is None else langs) if lang != "en"]

    def build(fresh: Path) -> None:
        _sphinx_build(Path(root), fresh, jobs, "en")
        for lang in translated:
            with tempfile.TemporaryDirectory(prefix=f".edition-{lang}-") as edition:
                build_translation(lang, Path(edition), Path(root))
                _sphinx_build(Path(edition), fresh / lang, jobs, lang)
        _check(fresh)

    build_replacing(out_dir, MARKER, build)
    return out_dir


def _sphinx_build(root: Path, out: Path, jobs: str, lang: str) -> None:
    """Stage the sources at ``root`` (the course, or a translated edition's build), run
    sphinx-build for edition ``lang`` into ``out``."""
    with tempfile.TemporaryDirectory(prefix=".site-sources-") as tmp:
        work = Path(tmp)
        stage_sources(root, work / "src")
        command = [sys.executable, "-m", "sphinx", "-b", "html", "-q", "-j", jobs]
        command += ["-c", str(DOCS), "-d", str(work / "doctrees"), str(work / "src"), str(out)]
        env = {**os.environ, "PYTHONWARNINGS": "ignore::DeprecationWarning"}
        env["COURSE_SITE_LANG"] = lang
        result = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
        where = "notebooks/" if lang == "en" else f"{lang}: notebooks/"
        sys.stderr.write(result.stderr.replace(str(work / "src") + os.sep, where))
    if result.returncode != 0:
        raise RuntimeError(f"sphinx-build failed for {lang} (exit {result.returncode})")
    _restore_downloads(root, out)


def _restore_downloads(root: Path, out: Path) -> None:
    """The download button serves ``_sources/NN_x.ipynb``: make it the committed notebook, not
    the staged copy that carries MyST-NB's image options (:func:`_pass_alt_texts`)."""
    notebooks = Path(root) / "notebooks"
    for source in lesson_notebooks(root) + solution_notebooks(root):
        served = out / "_sources" / source.relative_to(notebooks)
        if served.is_file():
            shutil.copy2(source, served)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT}")
    parser.add_argument("--jobs", default="auto", help="sphinx-build -j (default: auto)")
    parser.add_argument(
        "--lang",
        action="append",
        help="an edition to build beside the English one (repeatable; default: every language "
        "in locale/; --lang en: English alone)",
    )
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        site = build_site(args.out, jobs=args.jobs, langs=args.lang)
    except (FileExistsError, FileNotFoundError, RuntimeError, ValueError) as error:
        print(f"build_site: {error}", file=sys.stderr)
        return 1
    pages = len(list(site.rglob("*.html")))
    print(f"{pages} pages in {time.perf_counter() - start:.1f} s: {site / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
