"""The static site (``scripts/build_site.py``, ``docs/conf.py``) as a reader sees it.

Builds the whole course once (or uses the site that ``COURSE_SITE_DIR`` names, as ``.ci/run``
does) and a small probe course full of hostile HTML, then opens the pages in a real browser:
Debian's Chromium driven by Playwright (``executable_path``, no browser download), from
``file://`` and from a static server on localhost. Any request that would leave the machine is
refused and fails the test. Without Chromium or Playwright the browser tests skip with a message;
the build and sanitising checks still run.
"""

from __future__ import annotations

import functools
import http.server
import importlib.util
import json
import os
import re
import subprocess
import sys
import threading
from pathlib import Path
from urllib.parse import quote

import nbformat
import pytest
from _browser import CHROMIUM, LAUNCH_ARGS, ranked_pages, search_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import _offline_html  # noqa: E402
import build_site  # noqa: E402
import i18n  # noqa: E402
from _course import lesson_notebooks, solution_notebooks  # noqa: E402

_spec = importlib.util.spec_from_file_location("course_site_conf", ROOT / "docs" / "conf.py")
site_conf = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(site_conf)

LESSONS = [p.stem for p in lesson_notebooks()]
SOLUTIONS = [p.stem for p in solution_notebooks()]
LANGUAGES = i18n.languages()  # the translated editions, each in its own folder of the site
SECRET = "SPEAKER-NOTES-ANSWER-4217"

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the pin installs it
    sync_playwright = None

needs_browser = pytest.mark.skipif(
    CHROMIUM is None or sync_playwright is None,
    reason="no browser: install Debian's chromium (apt-get install -y chromium) and the pinned "
    "playwright (pip install -r requirements.txt) to test the site in a browser",
)


# ---------------------------------------------------------------- builds


@pytest.fixture(scope="module")
def site(course_site) -> Path:
    """The whole course's site: ``COURSE_SITE_DIR`` when CI built it, else built once per
    session (``course_site`` in ``tests/conftest.py``, shared with the other site tests)."""
    return course_site


def _probe_course(root: Path) -> None:
    """A course folder whose notebooks hold every kind of HTML an author might paste."""
    new_md, new_code, out = (
        nbformat.v4.new_markdown_cell,
        nbformat.v4.new_code_cell,
        nbformat.v4.new_output,
    )
    outputs = [
        out(
            "display_data",
            data={
                "text/html": "<script>window.__probe_html = 1</script><b>HTML-ONLY</b>",
                "text/plain": "HTML-FALLBACK",
            },
        ),
        out(
            "display_data",
            data={"application/javascript": "window.__probe_js = 1", "text/plain": "JS-FALLBACK"},
        ),
        out(
            "display_data",
            data={
                "text/markdown": "From markdown <script>window.__probe_md_out = 1</script>",
                "text/plain": "MD-FALLBACK",
            },
        ),
        out(
            "display_data",
            data={
                "application/vnd.jupyter.widget-view+json": {"model_id": "x", "version_major": 2},
                "text/plain": "WIDGET-PLACEHOLDER",
            },
        ),
    ]
    notebook = nbformat.v4.new_notebook(
        cells=[
            new_md(
                "# 00 · Probe lesson\n\nInline math $x_t$ and <b>bold</b>.\n\n"
                "<script>window.__probe_md = 1</script>\n\n"
                '<img src="missing.png" onerror="window.__probe_img = 1">\n\n'
                "[a trap](javascript:window.__probe_link=1)\n\n## A section\n\nText."
            ),
            new_code("print('hello')", execution_count=1, outputs=outputs),
        ]
    )
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    notebooks = root / "notebooks"
    (notebooks / "solutions").mkdir(parents=True)
    (notebooks / "lectures").mkdir()
    nbformat.write(notebook, notebooks / "00_probe.ipynb")
    nbformat.write(notebook, notebooks / "solutions" / "00_probe.ipynb")
    (notebooks / "lectures" / "00_notes.md").write_text(f"# Notes\n\n{SECRET}\n")
    (notebooks / "glossary.md").write_text(
        "# Glossary\n\n| symbol | in code | meaning |\n|---|---|---|\n"
        "| $\\omega_k$ | `omega` | a frequency |\n\n## Terms\n\n"
        "**Causal mask (look-ahead mask).** Hides the future.\n"
    )
    (notebooks / "references.md").write_text(
        "# References\n\n- Vaswani et al. (2017). arXiv:1706.03762\n- A DOI: doi:10.1000/xyz123.\n"
        "- Code: pytorch/pytorch, issues #24816 and #41508; zju3dv/LoFTR, issue #41\n"
    )
    (notebooks / "lecture_plan.md").write_text("# Lecture plan\n\nWeek 1: the probe.\n")


@pytest.fixture(scope="module")
def probe(tmp_path_factory) -> Path:
    """The probe course's site, built over a stale earlier build that must disappear."""
    tmp = tmp_path_factory.mktemp("probe")
    _probe_course(tmp / "course")
    out = tmp / "site"
    out.mkdir()
    (out / "stale_page.html").write_text("from an earlier build")
    (out / build_site.MARKER).write_text("")
    return build_site.build_site(out, root=tmp / "course")


def _article(page: Path) -> str:
    match = re.search(r'(?s)<article class="bd-article".*</article>', page.read_text("utf-8"))
    assert match, f"{page.name}: no article"
    return match.group(0)


# ---------------------------------------------------------------- build checks (no browser)


def test_probe_build_replaces_the_output_and_keeps_speaker_notes_out(probe):
    assert not (probe / "stale_page.html").exists(), "a page of an earlier build survived"
    assert (probe / "00_probe.html").is_file() and (probe / "solutions" / "00_probe.html").is_file()
    assert not (probe / "lectures").exists() and not (probe / "_sources" / "lectures").exists()
    for path in probe.rglob("*"):
        if path.is_file() and path.suffix in (".html", ".js", ".md", ".ipynb", ".txt"):
            assert SECRET not in path.read_text("utf-8", errors="replace"), path
    assert not list(probe.parent.glob(".site-*")), "the build left its temporary folder"


def test_sphinx_config_itself_excludes_the_speaker_notes(tmp_path):
    """Even a hand-run ``sphinx-build -c docs`` on a folder holding lectures/ leaves them out."""
    source = tmp_path / "src"
    (source / "lectures").mkdir(parents=True)
    (source / "lectures" / "00_notes.md").write_text(f"# Notes\n\n{SECRET}\n")
    (source / "index.md").write_text("# Probe\n\n```{toctree}\n:glob:\n\nlectures/*\n```\n")
    command = [sys.executable, "-m", "sphinx", "-q", "-b", "html", "-c", str(ROOT / "docs")]
    result = subprocess.run(
        [*command, str(source), str(tmp_path / "out")], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr[-2000:]
    built = [p for p in (tmp_path / "out").rglob("*") if p.is_file()]
    assert built and not [p for p in built if "lectures" in p.relative_to(tmp_path).parts]
    assert not [p for p in built if SECRET in p.read_text("utf-8", errors="replace")]


def test_build_refuses_to_replace_a_folder_it_did_not_build(tmp_path):
    (tmp_path / "notes.txt").write_text("precious")
    with pytest.raises(FileExistsError, match="not built by this script"):
        build_site.build_site(tmp_path)
    assert (tmp_path / "notes.txt").read_text() == "precious"


def test_probe_scripts_and_handlers_never_reach_a_page(probe):
    for name in ("00_probe.html", "solutions/00_probe.html"):
        article = _article(probe / name)
        assert build_site.unsafe_html(article) == []
        assert "<script" not in article and "onerror" not in article
        assert not re.search(r"(href|src)=.?javascript:", article) and "HTML-ONLY" not in article
        for fallback in ("HTML-FALLBACK", "JS-FALLBACK", "From markdown"):
            assert fallback in article, f"{fallback}: the safe fallback is shown"
        assert site_conf.WIDGET_PLACEHOLDER in article and "WIDGET-PLACEHOLDER" not in article
        assert "<b>bold</b>" in article, "harmless inline HTML is kept"


def test_unsafe_html_check_and_sanitiser_catch_each_attack():
    attacks = [
        "<script>alert(1)</script>",
        '<img src="x" onerror="alert(1)">',
        '<a href="javascript:alert(1)">x</a>',
        '<iframe src="https://example.org"></iframe>',
        '<svg onload="alert(1)"></svg>',
    ]
    for attack in attacks:
        page = f'<article class="bd-article">{attack}</article>'
        assert build_site.unsafe_html(page), attack
        cleaned = site_conf.sanitise_html(attack)
        assert build_site.unsafe_html(f'<article class="bd-article">{cleaned}</article>') == []
        assert "alert" not in cleaned or "<" not in cleaned, cleaned
    assert build_site.unsafe_html('<article class="bd-article"><b>ok</b></article>') == []
    assert site_conf.sanitise_html("<details><summary>s</summary>x</details>").count("<") == 4


def test_probe_links_anchors_and_lecture_plan(probe):
    references = (probe / "references.html").read_text("utf-8")
    assert 'href="https://arxiv.org/abs/1706.03762"' in references
    assert 'href="https://doi.org/10.1000/xyz123"' in references
    for thread in (
        "pytorch/pytorch/issues/24816",
        "pytorch/pytorch/issues/41508",
        "zju3dv/LoFTR/issues/41",
    ):
        assert f'href="https://github.com/{thread}"' in references, thread
    glossary = (probe / "glossary.html").read_text("utf-8")
    assert 'id="term-causal-mask"' in glossary and 'id="symbol-omega-k"' in glossary
    index = (probe / "index.html").read_text("utf-8")
    assert "Lecture material" in index and 'href="lecture_plan.html"' in index


def test_the_offline_check_catches_a_cdn():
    stock = '<script src="https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"></script>'
    assert _offline_html.external_assets(stock) == [
        "https://cdnjs.cloudflare.com/ajax/libs/mathjax/2.7.7/latest.js"
    ]
    assert _offline_html.external_assets('<link rel="stylesheet" href="//unpkg.com/x.css">')
    assert _offline_html.external_assets("import mermaid from 'https://cdn.x/mermaid.mjs';")
    assert _offline_html.external_assets('<a href="https://arxiv.org">paper</a>') == []


def test_export_page_writes_a_plain_offline_page_by_default(tmp_path):
    notebook = nbformat.v4.new_notebook()
    notebook.cells.append(nbformat.v4.new_markdown_cell("# Title\n\n[next](04_x.ipynb)"))
    page = _offline_html.export_page(notebook, tmp_path / "x.html", tmp_path / "_static")
    text = page.read_text(encoding="utf-8")
    assert page == tmp_path / "x.html" and 'href="04_x.html"' in text
    assert 'src="_static/mathjax/MathJax.js' in text and "course-page" in text
    assert _offline_html.external_assets(text) == []


def test_check_env_knows_the_site_stack(monkeypatch):
    from helpers import check_env

    pins = check_env.read_pins()
    site_stack = ["sphinx", "myst-nb", "sphinx-book-theme", "pydata-sphinx-theme"]
    for name in [*site_stack, "sphinx-copybutton", "playwright"]:
        assert re.fullmatch(r"\d+(\.\d+)+", pins.get(name, "")), f"{name} is not pinned"
    names = [c.name for c in check_env.run_checks()]
    assert {"sphinx", "myst-nb", "playwright", "chromium (optional)"} <= set(names)
    assert check_env.SUPPORTED_PYTHON[0] == (3, 11), "Sphinx 9.0.4 needs Python 3.11"
    monkeypatch.setattr(check_env.shutil, "which", lambda name: None)
    (browser,) = [c for c in check_env.run_checks({}) if c.name == "chromium (optional)"]
    assert not browser.ok and not browser.required and "apt-get install chromium" in browser.fix


def test_interrupted_copies_are_repaired(tmp_path):
    static = _offline_html.vendor_assets(tmp_path)
    mathjax = static / "mathjax" / "MathJax.js"
    size = mathjax.stat().st_size
    mathjax.write_bytes(b"")  # as an interrupted copy leaves it
    (static / "mathjax" / "config" / "TeX-AMS-MML_HTMLorMML-full.js").unlink()
    _offline_html.vendor_assets(tmp_path)
    assert mathjax.stat().st_size == size > 10_000
    assert (static / "mathjax" / "config" / "TeX-AMS-MML_HTMLorMML-full.js").is_file()


def test_whole_site_has_every_page_and_no_network_asset(site):
    pages = [*LESSONS, *(f"solutions/{s}" for s in SOLUTIONS), "glossary", "references", "faq"]
    for name in [*pages, "guide_lecturers", "guide_maintainers"]:
        assert (site / f"{name}.html").is_file(), name
    for page in site.rglob("*.html"):
        text = page.read_text("utf-8")
        assert _offline_html.external_assets(text) == [], page
        assert build_site.unsafe_html(text) == [], page
    assert not (site / "lectures").exists()
    assert (site / "_static" / "mathjax" / "MathJax.js").stat().st_size > 10_000


def test_sidebar_lists_lessons_then_solutions_then_reference_pages(site):
    index = (site / "index.html").read_text("utf-8")
    sidebar = index[index.index("bd-sidebar-primary") :]
    wanted = [f"{n}.html" for n in LESSONS] + [f"solutions/{n}.html" for n in SOLUTIONS]
    wanted += ["glossary.html", "faq.html", "references.html", "lecture_plan.html"]
    wanted += ["guide_lecturers.html", "guide_maintainers.html"]
    positions = [sidebar.find(f'href="{href}"') for href in wanted]
    assert -1 not in positions, [w for w, p in zip(wanted, positions, strict=True) if p == -1]
    assert positions == sorted(positions), "the sidebar is out of order"


# ---------------------------------------------------------------- in the browser


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args) -> None:  # keep the test output clean
        pass


@pytest.fixture(scope="module")
def server(site):
    """A static file server for the site on localhost; yields its base URL."""
    handler = functools.partial(_QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/"
    httpd.shutdown()


@pytest.fixture(scope="module")
def browser():
    if CHROMIUM is None or sync_playwright is None:
        pytest.skip("no browser (see needs_browser)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        yield browser
        browser.close()


class Tab:
    """One browser page that records console errors, page errors, failed and remote requests."""

    def __init__(self, browser, width: int = 1280, height: int = 900) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.problems: list[str] = []
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.page.on("console", self._console)
        self.page.on("pageerror", lambda error: self.problems.append(f"page error: {error}"))
        self.page.on("requestfailed", self._failed)
        self.page.on(
            "dialog", lambda d: (self.problems.append(f"dialog: {d.message}"), d.dismiss())
        )

    def _route(self, route) -> None:
        url = route.request.url
        if re.match(r"(file:|data:|blob:|http://(127\.0\.0\.1|localhost)[:/])", url):
            route.continue_()
        else:
            self.problems.append(f"request leaving the machine: {url}")
            route.abort()

    def _console(self, message) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    def _failed(self, request) -> None:
        self.problems.append(f"failed request: {request.url} ({request.failure})")

    def open(self, url: str) -> None:
        self.problems.clear()
        self.page.goto(url)
        self.page.wait_for_load_state("load")
        # MathJax loads asynchronously; queue a callback after its first typesetting pass.
        self.page.wait_for_function(
            "() => !document.querySelector('.math.notranslate') || (window.MathJax && MathJax.isReady)",
            timeout=60_000,
        )
        self.page.evaluate(
            "() => new Promise(done => window.MathJax && MathJax.Hub"
            " ? MathJax.Hub.Queue(() => done(true)) : done(true))"
        )

    def close(self) -> None:
        self.context.close()


_RAW_MATH = r"""() => {
    const article = document.querySelector('article.bd-article');
    if (!article) return [];
    const copy = article.cloneNode(true);
    copy.querySelectorAll('pre, code, script, .MathJax, .MathJax_Display, .MathJax_Preview')
        .forEach(e => e.remove());
    return copy.innerText.match(/\$[^$\s][^$]*\$|\\\(|\\\[/g) || [];
}"""

_UNTYPESET = r"""() => Array.from(document.querySelectorAll('article .math.notranslate'))
    .filter(e => !e.querySelector('.MathJax, .MathJax_Display') || e.querySelector('.MathJax_Error'))
    .map(e => e.textContent.slice(0, 60))"""


def _pages(site: Path) -> list[Path]:
    return sorted(p for p in site.rglob("*.html") if "_static" not in p.parts)


# The whole-site walk takes minutes (two widths, both editions, about 90 pages each); .ci/run
# runs it in its own step with COURSE_SITE_PAGES=all. The README's `pytest` opens one page of
# each kind in each edition instead (_sample_pages): the pages of one kind share their template,
# scripts and MathJax set-up, and differ only in their text.
ALL_PAGES = os.environ.get("COURSE_SITE_PAGES", "") == "all"


def _math_count(page: Path) -> int:
    return page.read_text("utf-8").count('class="math notranslate')


def _sample_pages(site: Path) -> list[Path]:
    """One page of each kind in each edition (the English one at the root, each translation in
    its ``<lang>/`` folder): the front page, search, the index, the glossary (math in tables),
    and the lesson and the solution with the most formulas (the likeliest to show untypeset or
    cut math; the first of a tie)."""
    sample = []
    for root in [site, *(site / lang for lang in LANGUAGES)]:
        sample += [
            root / n for n in ("index.html", "search.html", "genindex.html", "glossary.html")
        ]
        lessons = [root / f"{stem}.html" for stem in LESSONS]
        solutions = [root / "solutions" / f"{stem}.html" for stem in SOLUTIONS]
        sample += [max(lessons, key=_math_count), max(solutions, key=_math_count)]
    return sample


def test_the_sampled_pages_exist_and_hold_formulas(site):
    sample = _sample_pages(site)
    assert LANGUAGES and len(sample) == 6 * (1 + len(LANGUAGES)) == len(set(sample))
    assert [p for p in sample if not p.is_file()] == []
    for page in sample[4::6] + sample[5::6]:  # each edition's lesson and solution
        assert _math_count(page) >= 10, f"{page.relative_to(site)}: few formulas to check"
    assert {p.relative_to(site).as_posix() for p in sample[4::6]} == {
        f"{prefix}{sample[4].name}" for prefix in ["", *(f"{lang}/" for lang in LANGUAGES)]
    }, "the editions sample different lessons"


def _page_problems(tab: Tab, uri: str) -> list[str]:
    """Open ``uri`` and list what is wrong with it: errors, requests, untypeset or cut math."""
    tab.open(uri)
    problems = list(tab.problems)
    problems += [f"untypeset math: {m}" for m in tab.page.evaluate(_UNTYPESET)]
    problems += [f"raw math: {m}" for m in tab.page.evaluate(_RAW_MATH)]
    cut = tab.page.evaluate(
        "() => Array.from(document.querySelectorAll('article div.math'))"
        ".filter(e => e.scrollWidth > e.clientWidth + 1"
        " && !['auto', 'scroll'].includes(getComputedStyle(e).overflowX)).length"
    )
    if cut:
        problems.append(f"{cut} display equation(s) cut off instead of scrolling")
    return problems


@needs_browser
@pytest.mark.parametrize("width", [1280, 375], ids=["desktop", "phone"])
def test_every_page_loads_offline_with_math_typeset(site, browser, width):
    """Every page with COURSE_SITE_PAGES=all (.ci/run's site step), else one of each kind."""
    tab = Tab(browser, width=width)
    failures = {}
    try:
        for page in _pages(site) if ALL_PAGES else _sample_pages(site):
            problems = _page_problems(tab, page.as_uri())
            if problems:
                # One more load: on a busy 2-core machine MathJax can, once in a while, give up
                # on its web font mid-load. A problem that comes back is a defect of the page.
                print(f"{page.name}, first load: {problems}")
                problems = _page_problems(tab, page.as_uri())
            if problems:
                failures[page.relative_to(site).as_posix()] = problems
    finally:
        tab.close()
    assert not failures, json.dumps(failures, indent=1)[:4000]


def _title_words(stem: str) -> str:
    notebook = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
    title = _offline_html.notebook_title(notebook)
    return re.sub(r"^\d\d\s*·\s*", "", title).split(":")[0]


def _search(tab: Tab, base: str, query: str) -> list[str]:
    tab.open(f"{base}search.html?q={quote(query)}")
    return search_results(tab.page)


@needs_browser
@pytest.mark.parametrize("where", ["file", "server"])
def test_search_finds_the_right_lessons_offline(site, server, browser, where):
    base = site.as_uri() + "/" if where == "file" else server
    tab = Tab(browser)
    try:
        ranked = {q: _search(tab, base, q) for q in ("rotary", "causal mask")}
        assert "11_relative_and_rotary.html" in ranked["rotary"][:3], ranked["rotary"]
        assert "07_masks.html" in ranked["causal mask"][:3], ranked["causal mask"]
        for query, shown in ranked.items():  # the in-page ranking is what the page shows
            assert ranked_pages(tab.page, query) == shown, query
        for stem in LESSONS:
            query = _title_words(stem)
            found = ranked_pages(tab.page, query)  # one page load, not one per lesson
            # Sphinx stems "production" to "product": without docs/scorer.js, pages about the
            # dot product outranked lesson 17 for its own title
            assert f"{stem}.html" in found[:3], (stem, query, found[:5])
        assert tab.problems == []
    finally:
        tab.close()


@needs_browser
def test_lesson_page_offers_download_copy_and_run_note_and_no_launch(site, server, browser):
    tab = Tab(browser)
    try:
        for stem in ("03_sinusoidal_encoding", f"solutions/{SOLUTIONS[0]}"):
            tab.open(f"{server}{stem}.html")
            link = tab.page.locator("a.btn[href$='.ipynb']").first
            href = link.get_attribute("href")
            response = tab.page.request.get(f"{server}{stem}.html".rsplit("/", 1)[0] + "/" + href)
            assert response.ok, href
            served = nbformat.reads(response.text(), as_version=4)
            committed = nbformat.read(ROOT / "notebooks" / f"{stem}.ipynb", as_version=4)
            assert served == committed, "the download is not the committed notebook"
            assert tab.page.locator("button.copybtn").count() >= 1, "no copy buttons"
            note = tab.page.locator(".run-this-lesson").inner_text()
            assert "pip install -r requirements.txt" in note and f"{stem}.ipynb" in note
            text = tab.page.locator("body").inner_text().lower()
            assert "binder" not in text and "colab" not in text and "launch" not in text
            assert tab.page.locator("#pst-page-toc-nav a").count() >= 1, "no in-page contents"
            assert tab.page.locator(".prev-next-area a").count() >= 1
        assert tab.problems == []
    finally:
        tab.close()


@needs_browser
def test_probe_page_runs_no_injected_script(probe, browser):
    tab = Tab(browser)
    try:
        tab.open((probe / "00_probe.html").as_uri())
        flags = tab.page.evaluate(
            "() => ['__probe_html', '__probe_js', '__probe_md', '__probe_md_out', '__probe_img',"
            " '__probe_link'].filter(name => name in window)"
        )
        assert flags == []
        for link in tab.page.locator("article a").all():
            assert not (link.get_attribute("href") or "").lower().startswith("javascript:")
    finally:
        tab.close()
