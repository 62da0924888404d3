"""The offline builds: static site and reveal.js slides load nothing from the network.

Builds a tiny notebook (and the smallest committed course notebook, when there is one) into a
temporary folder, checks that every script and style sheet is a local file that exists, and, when
Chromium is installed (``apt-get install -y chromium``), opens the pages in a real headless
browser with networking disabled and checks that MathJax typeset the math and reveal.js started.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import _offline_html  # noqa: E402
import build_site  # noqa: E402
import build_slides  # noqa: E402

MATH = r"$\omega_k = 1 / 10000^{2k/d_{model}}$"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def _tiny_notebook() -> nbformat.NotebookNode:
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    notebook = nbformat.v4.new_notebook(
        cells=[
            new_md(
                f"# 98 · A tiny page\n\nInline {MATH}, and displayed:\n\n"
                r"$$PE(t + \phi) = M(\phi)\, PE(t)$$"
                "\n\nSee the [glossary](glossary.md)."
            ),
            new_code("x = 1", execution_count=1),
            new_md(
                "## A section\n\nLinks to [notebook 99](99_next.ipynb#part) and "
                "[a paper](https://arxiv.org/abs/1706.03762)."
            ),
            new_code(
                "print(x)",
                execution_count=2,
                outputs=[nbformat.v4.new_output("stream", name="stdout", text="1\n")],
            ),
        ]
    )
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return notebook


def _smallest_course_notebook() -> list[Path]:
    lessons = sorted(
        (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"), key=lambda p: p.stat().st_size
    )
    return lessons[:1]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """Build the site and the slides once for the module; return their folders and pages."""
    tmp = tmp_path_factory.mktemp("course")
    notebooks = tmp / "notebooks"
    (notebooks / "solutions").mkdir(parents=True)
    nbformat.write(_tiny_notebook(), notebooks / "98_tiny.ipynb")
    nbformat.write(_tiny_notebook(), notebooks / "solutions" / "98_tiny.ipynb")
    (notebooks / "glossary.md").write_text("# Glossary\n\n**phi** $\\phi$: an offset.\n")
    sources = [notebooks / "98_tiny.ipynb", notebooks / "solutions" / "98_tiny.ipynb"]
    sources += _smallest_course_notebook()
    site = build_site.build_site(sources, tmp / "site", root=tmp)
    slides = build_slides.build_slides(sources, tmp / "slides", root=tmp)
    return {"site_dir": tmp / "site", "slides_dir": tmp / "slides", "site": site, "slides": slides}


def _local_assets(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    return re.findall(r"<(?:script|link)\b[^>]*?\b(?:src|href)=\"([^\"]+)\"", text)


def test_site_has_every_page(built):
    names = {p.relative_to(built["site_dir"]).as_posix() for p in built["site"]}
    assert {"index.html", "98_tiny.html", "solutions/98_tiny.html", "glossary.html"} <= names
    index = (built["site_dir"] / "index.html").read_text(encoding="utf-8")
    assert 'href="98_tiny.html"' in index and 'href="solutions/98_tiny.html"' in index
    assert "98 · A tiny page" in index


@pytest.mark.parametrize("kind", ["site", "slides"])
def test_no_asset_comes_from_the_network(built, kind):
    for page in built[kind]:
        text = page.read_text(encoding="utf-8")
        assert _offline_html.external_assets(text) == [], page.name
        assert not re.search(r"<(script|link)\b[^>]*(src|href)=\"(https?:)?//", text), page.name
        for cdn in ("cdnjs", "unpkg", "jsdelivr", "requirejs", "jquery"):
            assert not re.search(rf"(src|href)=\"[^\"]*{cdn}", text), f"{page.name}: {cdn}"


@pytest.mark.parametrize("kind", ["site", "slides"])
def test_every_script_and_style_sheet_exists_locally(built, kind):
    checked = 0
    for page in built[kind]:
        for url in _local_assets(page):
            target = (page.parent / url.split("?")[0]).resolve()
            assert target.is_file(), f"{page.name} links {url}, which is missing"
            checked += 1
    assert checked >= len(built[kind]), "expected at least MathJax on every page"


def test_math_and_slide_assets_are_vendored(built):
    mathjax = built["site_dir"] / "_static" / "mathjax"
    assert (mathjax / "MathJax.js").stat().st_size > 10_000
    assert (mathjax / "config" / "TeX-AMS-MML_HTMLorMML-full.js").is_file()
    assert list((mathjax / "fonts" / "HTML-CSS" / "STIX-Web" / "woff").rglob("*.woff"))
    reveal = built["slides_dir"] / "_static" / "reveal.js"
    assert "reveal.js 5" in (reveal / "dist" / "reveal.js").read_text(encoding="utf-8")[:200]
    assert (reveal / "plugin" / "notes" / "notes.js").is_file()


def test_math_source_and_outputs_reach_the_page(built):
    page = (built["site_dir"] / "98_tiny.html").read_text(encoding="utf-8")
    assert r"\omega_k" in page and r"M(\phi)" in page
    assert "MathJax.js?config=TeX-AMS-MML_HTMLorMML-full" in page
    assert re.search(r"<pre>1\n</pre>", page), "the stdout output is missing"


def test_local_links_point_at_built_pages(built):
    site = (built["site_dir"] / "98_tiny.html").read_text(encoding="utf-8")
    deck = (built["slides_dir"] / "98_tiny.slides.html").read_text(encoding="utf-8")
    assert 'href="99_next.html#part"' in site and 'href="glossary.html"' in site
    assert 'href="99_next.slides.html#part"' in deck
    assert 'href="https://arxiv.org/abs/1706.03762"' in site  # a link, not an asset: kept
    assert (built["slides_dir"] / "glossary.html").is_file()


def test_slides_follow_the_slide_metadata(built):
    deck = (built["slides_dir"] / "98_tiny.slides.html").read_text(encoding="utf-8")
    # reveal.js nests a vertical stack in each slide: title and one '## ' slide = 2 x 2 sections
    assert deck.count("<section") == 4, "expected the title slide and one '## ' section slide"
    assert "x = 1" not in deck, "the set-up cell is skipped in the slides"
    assert "Reveal.initialize" in deck


def test_the_offline_check_catches_a_cdn():
    stock = '<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"></script>'
    assert _offline_html.external_assets(stock) == [
        "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"
    ]
    assert _offline_html.external_assets('<link rel="stylesheet" href="//unpkg.com/x.css">')
    assert _offline_html.external_assets("import mermaid from 'https://cdn.x/mermaid.mjs';")
    assert _offline_html.external_assets('<a href="https://arxiv.org">paper</a>') == []


def test_unknown_kind_is_refused(tmp_path):
    with pytest.raises(ValueError, match="kind"):
        _offline_html.export_page(_tiny_notebook(), tmp_path / "x.html", tmp_path, kind="pdf")


def _dump_dom(page: Path, profile: Path) -> str:
    command = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        f"--user-data-dir={profile}",
        "--virtual-time-budget=10000",
        "--dump-dom",
        page.as_uri(),
    ]
    result = subprocess.run(command, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr[-2000:]
    return result.stdout


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install -y chromium)")
def test_headless_browser_renders_the_math_offline(built, tmp_path):
    dom = _dump_dom(built["site_dir"] / "98_tiny.html", tmp_path / "profile")
    # MathJax replaces each $...$ by a rendered span.MathJax (display math in a MathJax_Display)
    assert len(re.findall(r'class="MathJax"', dom)) >= 2, "MathJax did not typeset the page"
    assert "MathJax_Display" in dom
    assert 'class="MathJax_Error"' not in dom and "Math Processing Error" not in dom


@pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install -y chromium)")
def test_headless_browser_starts_the_slides_offline(built, tmp_path):
    dom = _dump_dom(built["slides_dir"] / "98_tiny.slides.html", tmp_path / "profile")
    assert re.search(r'class="reveal[^"]*\bready\b', dom), "reveal.js did not start"
    assert re.search(r'class="slide-number"', dom)
    assert 'class="MathJax"' in dom, "MathJax did not typeset the slides"
