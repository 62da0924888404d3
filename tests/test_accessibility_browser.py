"""Accessibility of the whole site and of every deck in a real browser: axe-core and our own checks.

axe-core (WCAG 2.0/2.1, levels A and AA) runs in Debian's Chromium driven by Playwright over

- every page of the built site (:func:`site_pages`: lessons, solutions, glossary, references,
  lecture plan, index, search, general index), and the search page with results, at desktop
  width in light mode; five page kinds (:data:`SAMPLES`) also at phone width and in dark mode;
- every slide of every deck (:func:`deck_pages`: lessons and solutions), shown one by one in the
  1280x720 window; axe checks the whole page on a deck's first slide (controls, progress bar,
  slide number) and the shown slide on the others; and the decks folder's plain pages (index,
  glossary, references).

Every run must find 0 violations. axe-core comes from the pinned PyPI package
``axe-playwright-python`` (its ``axe.min.js``), read from disk and injected once into each page:
nothing is fetched at test time.

Our own checks, on the same pages (one load each), which axe cannot make:

- every image (``img``) on every page and slide has a text alternative that says something: not
  missing, not a file path, not nbconvert's "No description has been provided for this image"
  (:func:`figure_alt_problems`);
- formulas are not keyboard tab stops, and each keeps its assistive MathML (a screen reader's
  spoken text);
- no request fails (a font the offline copy lacks, as MathJax_AMS-Regular.otf was), no console
  error, no request leaves the machine;
- the slide number of every deck has a contrast of at least 4.5:1, and the deck's navigation
  arrows are invisible unless the mouse or the keyboard focus is on them (one deck);
- the checks themselves catch defects injected into a real page and a real deck.

Which folders: the site and the decks are built here from the course, unless ``COURSE_SITE_DIR``
and ``COURSE_SLIDES_DIR`` name built folders (``.ci/run`` passes the ones it built). Each may name
several folders separated by ``os.pathsep`` (``:``), e.g. a second edition of the site in another
language with the same page names: every check runs on each folder, and each folder must hold
every page the course has (:func:`expected_site_pages`, :func:`expected_deck_pages`).

Skips with a message where Playwright, Chromium or the axe package is missing. Takes minutes: it
runs when named on the command line (``.ci/run`` runs it as its own step) or with
COURSE_BROWSER_TESTS=1.
"""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pytest
from _browser import CHROMIUM, LAUNCH_ARGS, own_step, skip_reason

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402
from _course import lesson_notebooks, solution_notebooks  # noqa: E402
from _offline_html import EXTRA_PAGES  # noqa: E402
from build_slides import build_slides  # noqa: E402

WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
NO_DESCRIPTION = "No description has been provided"
SEARCH = "search.html?q=rotary"  # the search page with results, checked besides the bare one
# Page kinds checked also at phone width and in dark mode: a lesson with figures and formulas,
# a solution, the glossary's tables, the index and the search page with results.
SAMPLES = (
    "03_sinusoidal_encoding.html",
    "solutions/13_bugs_clinic.html",
    "glossary.html",
    "index.html",
    SEARCH,
)
_DECK = "06_scaled_dot_product_attention.slides.html"  # a deck for the samples
_SMALL_DECK = "solutions/13_bugs_clinic.slides.html"  # 6 slides: for injected defects
TABS = 2  # pages checked at once (one renderer each): the CI machine has 2 cores
SKIP = skip_reason(axe_playwright_python="axe-playwright-python")


# ---------------------------------------------------------------- our figure-alt rule


def figure_alt_problem(alt: str | None) -> str | None:
    """What is wrong with an image's alt text, or None: missing, empty, a file path or
    nbconvert's placeholder."""
    text = (alt or "").strip()
    if not text:
        return "no alt text"
    if NO_DESCRIPTION.lower() in text.lower():
        return f"placeholder: {text[:50]!r}"
    if re.search(r"\.(png|jpe?g|svg|gif|webp)$", text, re.I) or ("/" in text and " " not in text):
        return f"a file path: {text[:50]!r}"  # a sentence may still say "1/4" or "sqrt(d_k)/2"
    return None


def figure_alt_problems(alts: list[str | None]) -> list[str]:
    """The problems of the alt texts that do not describe their images (see above)."""
    return [problem for problem in map(figure_alt_problem, alts) if problem]


def test_figure_alt_rule_tells_a_description_from_a_path():
    """The rule itself (no browser): it passes a sentence and catches the three failures."""
    good = "Heat map of the encoding: the left columns change fast, the right ones slowly."
    assert figure_alt_problems([good]) == []
    assert len(figure_alt_problems(["", None, "../_images/abc.png", NO_DESCRIPTION + "."])) == 4
    assert figure_alt_problems(["_images/x.svg"]) == ["a file path: '_images/x.svg'"]
    assert figure_alt_problems(["Accuracy falls to chance, 1/8, past twice the length."]) == []


# ---------------------------------------------------------------- which pages


def site_pages(site: Path) -> list[Path]:
    """Every page of a built site (its HTML files outside ``_static``), sorted."""
    return sorted(p for p in Path(site).rglob("*.html") if "_static" not in p.parts)


def deck_pages(decks: Path) -> list[Path]:
    """Every HTML page of a built decks folder: the decks (``*.slides.html``, lessons and
    solutions) and the plain pages (index, glossary, references), sorted."""
    return sorted(p for p in Path(decks).rglob("*.html") if "_static" not in p.parts)


def expected_site_pages(root: Path = ROOT) -> list[str]:
    """The pages (relative paths) a site of the course at ``root`` must have."""
    notebooks = Path(root) / "notebooks"
    pages = [p.relative_to(notebooks).with_suffix(".html").as_posix() for p in _notebooks(root)]
    pages += [f"{p.stem}.html" for p in map(notebooks.joinpath, build_site.PAGES) if p.is_file()]
    return pages + ["index.html", "search.html", "genindex.html"]


def expected_deck_pages(root: Path = ROOT) -> list[str]:
    """The pages (relative paths) the decks folder of the course at ``root`` must have."""
    notebooks = Path(root) / "notebooks"
    pages = [
        p.relative_to(notebooks).with_suffix(".slides.html").as_posix() for p in _notebooks(root)
    ]
    pages += [f"{name}.html" for name in EXTRA_PAGES if (notebooks / f"{name}.md").is_file()]
    return pages + ["index.html"]


def _notebooks(root: Path = ROOT) -> list[Path]:
    return lesson_notebooks(root) + solution_notebooks(root)


def built_folders(variable: str) -> list[Path | None]:
    """The built folders an environment variable names (``os.pathsep`` between several), or
    ``[None]``: build one here."""
    value = os.environ.get(variable, "")
    return [Path(p).resolve() for p in value.split(os.pathsep) if p] or [None]


def _folder_id(folder: Path | None) -> str:
    return "built-here" if folder is None else "/".join(folder.parts[-2:])


# ---------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def _gate(request):
    own_step(request)
    if SKIP:
        pytest.skip(SKIP)


@pytest.fixture(scope="module", params=built_folders("COURSE_SITE_DIR"), ids=_folder_id)
def site(request, _gate) -> Path:
    """A built site: each folder of ``COURSE_SITE_DIR``, else the whole course's, built here."""
    if request.param is not None:
        return request.param
    return request.getfixturevalue("course_site")  # built once per session, tests/conftest.py


@pytest.fixture(scope="module", params=built_folders("COURSE_SLIDES_DIR"), ids=_folder_id)
def decks(request, _gate, tmp_path_factory) -> Path:
    """A built decks folder: each of ``COURSE_SLIDES_DIR``, else every deck, built here."""
    if request.param is not None:
        return request.param
    out = tmp_path_factory.mktemp("slides") / "slides"
    build_slides(_notebooks(), out)
    return out


def _axe_script() -> str:
    from importlib.resources import files

    script = (files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")
    assert script.startswith("/*! axe v4."), script[:40]
    return script


# Defined in each page with axe: what the checks share.
_HELPERS = r"""
window.__course = {
  sleep: ms => new Promise(done => setTimeout(done, ms)),
  async ready(timeout) {
    const until = Date.now() + timeout, C = window.__course;
    const wait = async (test, what) => {
      while (!test()) {
        if (Date.now() > until) throw new Error('timed out waiting for ' + what);
        await C.sleep(50);
      }
    };
    await wait(() => document.readyState === 'complete', 'the page to load');
    if (document.querySelector('.reveal'))
      await wait(() => window.Reveal && Reveal.isReady(), 'reveal.js');
    if (document.querySelector('.math, script[type^="math/tex"]'))
      await wait(() => window.MathJax && MathJax.isReady, 'MathJax');
    await C.typeset();
    // a search page with a query: Sphinx writes its summary when the search has ended
    if (/[?&]q=/.test(location.search) && document.querySelector('#search-results'))
      await wait(() => ((document.querySelector('#search-results .search-summary') || {})
        .innerText || '').trim(), 'search results');
  },
  typeset: () => new Promise(done =>
    window.MathJax && MathJax.Hub ? MathJax.Hub.Queue(() => done(true)) : done(true)),
  options: tags => ({runOnly: {type: 'tag', values: tags}, resultTypes: ['violations'],
                     preload: false}),
  line: v => v.id + ' (' + v.impact + '): ' +
    v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '),
  // formulas, and how many of them (or their insides) are tab stops or lack spoken text
  formulas() {
    return {
      formulas: document.querySelectorAll('.MathJax, .MathJax_Display').length,
      tab_stops: [...document.querySelectorAll('.MathJax, .MathJax_Display, .MathJax *')]
        .filter(el => el.tabIndex >= 0).length,
      spoken: [...document.querySelectorAll('.MJX_Assistive_MathML math')]
        .filter(m => !m.closest('.MathJax[aria-hidden="true"], .MathJax [aria-hidden="true"]'))
        .length,
      frames: document.querySelectorAll('span.MathJax').length,
    };
  },
  // every image but MathJax's own, with where it is: [where, alt]
  images(where) {
    return [...document.querySelectorAll('img')]
      .filter(img => !img.closest('.MathJax, .MathJax_Display'))
      .map(img => [where(img), img.getAttribute('alt')]);
  },
};
"""

# One page: axe over the whole document, then our checks.
_CHECK_PAGE = """async tags => {
  const C = window.__course;
  const start = performance.now();
  const result = await axe.run(document, C.options(tags));
  return {ready_ms: start, axe_ms: performance.now() - start,violations: result.violations.map(v => ['', C.line(v)]),
          formulas: C.formulas(), images: C.images(img => ''), slides: 0,
          background: getComputedStyle(document.body).backgroundColor};
}"""

# One deck: every slide shown in turn; axe over the whole document on the first slide (the
# controls, progress bar and slide number, and the rules about the whole page, such as duplicate
# ids), over the shown slide on each of the others. axe builds its model of the whole document on
# every run (6,000 elements in a long deck, most of them in the hidden slides, which it would skip):
# while it checks one slide, the other slides are taken out of the page and then put back, the
# same nodes in the same places (five times faster, and what axe sees of the slide is unchanged).
_CHECK_DECK = r"""async tags => {
  const C = window.__course, violations = [], start = performance.now();
  const slides = Reveal.getSlides();
  let axe_ms = 0;
  const others = slide => [...document.querySelectorAll('.reveal .slides > section')].flatMap(
    top => top === slide ? [] : !top.contains(slide) ? [top] :
      [...top.children].filter(sub => sub.tagName === 'SECTION' && sub !== slide));
  for (const [i, slide] of slides.entries()) {
    const at = Reveal.getIndices(slide);
    Reveal.slide(at.h, at.v || 0);
    await C.typeset();
    const before = performance.now();
    const away = i === 0 ? [] : others(slide);
    const marks = away.map(section => {
      const mark = document.createComment('slide');
      section.replaceWith(mark);
      return mark;
    });
    try {
      const result = await axe.run(i === 0 ? document : slide, C.options(tags));
      violations.push(...result.violations.map(v => [at.h + '.' + (at.v || 0), C.line(v)]));
    } finally {
      marks.forEach((mark, k) => mark.replaceWith(away[k]));
    }
    axe_ms += performance.now() - before;
  }
  const where = img => {
    const at = Reveal.getIndices(img.closest('section'));
    return at.h + '.' + (at.v || 0);
  };
  const rgb = c => c.match(/\d+(\.\d+)?/g).slice(0, 3).map(Number).map(x => x / 255)
    .map(x => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
  const lum = c => { const [r, g, b] = rgb(c); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
  const number = getComputedStyle(document.querySelector('.reveal .slide-number'));
  const [a, b] = [lum(number.color), lum(number.backgroundColor)].sort((x, y) => y - x);
  return {ready_ms: start, axe_ms, violations, formulas: C.formulas(), images: C.images(where), slides: slides.length,
          slide_number_contrast: (a + 0.05) / (b + 0.05),
          slide_number_background: number.backgroundColor};
}"""


class Tab:
    """One page of its own browser context that records failed requests, console and page
    errors, and requests leaving the machine (refused)."""

    def __init__(self, browser, width: int, height: int) -> None:
        self.context = browser.new_context(viewport={"width": width, "height": height})
        self.context.route("**/*", self._route)
        self.page = self.context.new_page()
        self.problems: list[str] = []
        self.page.on("requestfailed", lambda r: self.problems.append(f"failed request: {r.url}"))
        self.page.on("pageerror", lambda e: self.problems.append(f"page error: {e}"))
        self.page.on(
            "console",
            lambda m: self.problems.append(f"console: {m.text[:120]}") if m.type == "error" else 0,
        )
        self.path: Path | None = None
        self.started = 0.0

    def _route(self, route) -> None:
        if route.request.url.startswith(("file:", "data:", "about:", "blob:")):
            route.continue_()
        else:
            self.problems.append(f"request leaving the machine: {route.request.url}")
            route.abort()

    def start(self, path: Path, query: str, axe: str, setup: str, check: str) -> None:
        """Open ``path`` and start the checks in the page; :meth:`report` collects them."""
        self.path, self.started = path, time.monotonic()
        self.problems.clear()
        self.page.goto(path.resolve().as_uri() + query, wait_until="commit")
        self.page.evaluate(axe)
        self.page.evaluate(_HELPERS)
        self.page.evaluate(
            """([setup, check, tags]) => { window.__courseReport = null;
            window.__course.ready(120000).then(() => eval('(' + setup + ')')())
              .then(() => eval('(' + check + ')')(tags))
              .then(r => { window.__courseReport = r; },
                    e => { window.__courseReport = {error: String(e && e.stack || e)}; }); }""",
            [setup, check, WCAG_TAGS],
        )

    def report(self) -> dict | None:
        """The checks' results once they are done (with the page's problems), else None."""
        found = self.page.evaluate("() => window.__courseReport")
        if found is None:
            return None
        found["problems"] = list(self.problems)
        found["seconds"] = round(time.monotonic() - self.started, 1)
        return found

    def close(self) -> None:
        self.context.close()


class Browser:
    """One Chromium that checks many pages, :data:`TABS` at a time: each tab is started on a page
    (the checks run inside it, see :meth:`Tab.start`) and polled until its report is there, so
    that with Playwright's synchronous API two renderers work at once on two cores."""

    def __init__(self, playwright, axe: str) -> None:
        self.browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        self.axe = axe

    def check(
        self,
        folder: Path,
        names: list[str],
        width: int = 1280,
        height: int = 720,
        setup: str = "() => 0",
        tabs: int = TABS,
    ) -> dict[str, dict]:
        """Open each page of ``folder`` named in ``names`` (a name may end in ``?query``), run
        ``setup`` in it (a JavaScript function: dark mode, an injected defect), then axe and our
        checks (the deck check on a deck); return a report per name."""
        pool = [Tab(self.browser, width, height) for _ in range(min(tabs, len(names)))]
        todo, running, reports = list(names), {}, {}
        try:
            while todo or running:
                for tab in pool:
                    if tab not in running and todo:
                        name = todo.pop(0)
                        path, query = (name.split("?", 1) + [""])[:2]
                        deck = path.endswith(".slides.html")
                        check = _CHECK_DECK if deck else _CHECK_PAGE
                        tab.start(
                            folder / path, "?" + query if query else "", self.axe, setup, check
                        )
                        running[tab] = name
                for tab, name in list(running.items()):
                    report = tab.report()
                    if report is None and time.monotonic() - tab.started > 300:
                        report = {"error": "timed out after 300 s", "problems": list(tab.problems)}
                    if report is not None:
                        reports[name] = report
                        del running[tab]
                time.sleep(0.05)
        finally:
            for tab in pool:
                tab.close()
        return reports

    def close(self) -> None:
        self.browser.close()


@pytest.fixture(scope="module")
def browser(_gate):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = Browser(playwright, _axe_script())
        yield chromium
        chromium.close()


def _names(folder: Path, pages: list[Path]) -> list[str]:
    return [p.relative_to(folder).as_posix() for p in pages]


@pytest.fixture(scope="module")
def site_reports(site, browser) -> dict[str, dict]:
    """Every page of the site checked at desktop width, in light mode."""
    return browser.check(site, _names(site, site_pages(site)) + [SEARCH], height=900)


@pytest.fixture(scope="module")
def deck_reports(decks, browser) -> dict[str, dict]:
    """Every page of the decks folder checked at 1280x720, every slide of every deck."""
    return browser.check(decks, _names(decks, deck_pages(decks)))


# ---------------------------------------------------------------- what the reports must say


def _failures(reports: dict[str, dict]) -> dict[str, list[str]]:
    """axe's violations (with the slide where one is), errors and failed or remote requests."""
    failures = {}
    for name, report in reports.items():
        lines = [f"{where} {line}".strip() for where, line in report.get("violations", [])]
        lines += report["problems"] + ([report["error"]] if "error" in report else [])
        if lines:
            failures[name] = lines
    return failures


def _alt_failures(reports: dict[str, dict]) -> dict[str, list[str]]:
    """Our figure-alt rule over every image of every page (with its slide, in a deck)."""
    bad = {}
    for name, report in reports.items():
        for where, alt in report.get("images", []):
            problem = figure_alt_problem(alt)
            if problem:
                bad.setdefault(name, []).append(f"{where} {problem}".strip())
    return bad


def _formula_failures(reports: dict[str, dict]) -> dict[str, dict]:
    """The pages where a formula (or a part of one) is a tab stop or lacks its assistive MathML."""
    bad = {}
    for name, report in reports.items():
        counts = report.get("formulas", {})
        if counts.get("tab_stops") or counts.get("spoken") != counts.get("frames"):
            bad[name] = counts
    return bad


def _show(failures: dict) -> str:
    return "\n".join(f"{name}: {lines}" for name, lines in failures.items())


def test_site_has_every_page(site):
    missing = sorted(set(expected_site_pages()) - set(_names(site, site_pages(site))))
    assert not missing, f"{site} lacks {missing}"


def test_every_site_page_passes_axe_and_loads_everything(site_reports):
    failures = _failures(site_reports)
    assert not failures, _show(failures)
    assert len(site_reports) >= len(expected_site_pages())


def test_every_site_figure_has_a_text_alternative(site_reports):
    bad = _alt_failures(site_reports)
    assert not bad, _show(bad)
    images = sum(len(r.get("images", [])) for r in site_reports.values())
    assert images >= 40, f"only {images} images on the whole site"


def test_site_formulas_are_no_tab_stops_but_keep_their_spoken_text(site_reports):
    bad = _formula_failures(site_reports)
    assert not bad, _show(bad)
    formulas = sum(r.get("formulas", {}).get("formulas", 0) for r in site_reports.values())
    assert formulas >= 500, f"only {formulas} formulas on the whole site"


@pytest.mark.parametrize("width, dark", [(375, False), (1280, True)], ids=["phone", "dark"])
def test_sample_site_pages_pass_axe_at_phone_width_and_in_dark_mode(site, browser, width, dark):
    setup = "() => 0"
    if dark:  # the theme's own switch sets this attribute; wait for its transitions to end
        # (a fixed 300 ms was too short on a busy machine: a button measured mid-transition)
        setup = "() => { document.documentElement.dataset.theme = 'dark';"
        setup += " void document.body.offsetHeight;"  # start the transitions now
        # a transition replaced by another is cancelled and its `finished` rejects (AbortError):
        # ignore those and wait again until no animation is left (at most 20 rounds)
        setup += " const settle = (n) => { const running = document.getAnimations();"
        setup += " if (!running.length || !n) return window.__course.sleep(100);"
        setup += " return Promise.all(running.map((a) => a.finished.catch(() => 0)))"
        setup += ".then(() => settle(n - 1)); };"
        setup += " return settle(20); }"
    reports = browser.check(site, list(SAMPLES), width=width, height=900, setup=setup)
    assert set(reports) == set(SAMPLES)
    failures = _failures(reports)
    assert not failures, _show(failures)
    for name, report in reports.items():  # the theme is what the test says it is
        channels = [float(x) for x in re.findall(r"[\d.]+", report["background"])[:3]]
        assert (sum(channels) < 200) == dark, (name, report["background"])


def test_deck_folder_has_every_page(decks):
    missing = sorted(set(expected_deck_pages()) - set(_names(decks, deck_pages(decks))))
    assert not missing, f"{decks} lacks {missing}"


def test_every_slide_of_every_deck_passes_axe_and_loads_everything(deck_reports):
    failures = _failures(deck_reports)
    assert not failures, _show(failures)
    slides = {
        name: r["slides"] for name, r in deck_reports.items() if name.endswith(".slides.html")
    }
    assert len(slides) >= len(_notebooks()) and min(slides.values()) >= 2, slides
    assert sum(slides.values()) >= 300, f"only {sum(slides.values())} slides"


def test_every_deck_figure_has_a_text_alternative(deck_reports):
    bad = _alt_failures(deck_reports)
    assert not bad, _show(bad)
    images = sum(len(r.get("images", [])) for r in deck_reports.values())
    assert images >= 40, f"only {images} images in the decks"


def test_deck_formulas_are_no_tab_stops_but_keep_their_spoken_text(deck_reports):
    bad = _formula_failures(deck_reports)
    assert not bad, _show(bad)
    formulas = sum(r.get("formulas", {}).get("formulas", 0) for r in deck_reports.values())
    assert formulas >= 500, f"only {formulas} formulas in the decks"


def test_every_slide_number_has_contrast(deck_reports):
    ratios = {n: r["slide_number_contrast"] for n, r in deck_reports.items() if r.get("slides")}
    low = {name: f"{ratio:.2f}:1" for name, ratio in ratios.items() if ratio < 4.5}
    assert not low, f"slide number contrast below 4.5:1: {low}"
    assert len(ratios) >= len(_notebooks())


def test_deck_controls_cover_nothing_until_used(decks, browser):
    tab = Tab(browser.browser, 1280, 720)
    try:
        tab.page.goto((decks / _DECK).as_uri() + "#/2")
        tab.page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=60_000)
        opacity = "() => getComputedStyle(document.querySelector('.reveal .controls')).opacity"
        assert tab.page.evaluate(opacity) == "0", "the arrows show over the slide"
        tab.page.hover(".reveal .controls .navigate-right")
        tab.page.wait_for_timeout(400)
        assert tab.page.evaluate(opacity) == "1", "the arrows do not appear under the mouse"
    finally:
        tab.close()


# ---------------------------------------------------------------- the checks can fail

# Defects put into a real page after it loads: an image without alt text and one whose alt is a
# file name, grey text on white (contrast 1.6:1), a font file that is not there, and a formula
# frame (as MathJax writes it) that is a tab stop and has no assistive MathML. In a deck they go on its fourth slide, which the walk must reach.
_INJECT = r"""() => {
  const where = window.Reveal ? Reveal.getSlides()[3] : document.querySelector('article');
  where.insertAdjacentHTML('beforeend',
    '<p style="color: #ccc; background: #fff">faint text</p>' +
    '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20">' +
    '<img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" width="20" height="20" alt="fig_3.png">' +
    '<style>@font-face { font-family: Gone; src: url("_static/no-such-font.woff") }</style>' +
    '<span style="font-family: Gone">text in a missing font</span>' +
    '<span class="MathJax" tabindex="0">x</span>');
  return new Promise(done => setTimeout(done, 300));
}"""


def _injected_defects_found(browser, folder: Path, name: str) -> set[str]:
    """Check page ``name`` of ``folder`` with the defects of ``_INJECT``; assert that each check
    finds its defect; return where they were found (slides, in a deck)."""
    reports = browser.check(folder, [name], setup=_INJECT)
    report = reports[name]
    rules = {line.split(" ")[0] for _, line in report["violations"]}
    assert {"image-alt", "color-contrast"} <= rules, report["violations"]
    assert any("no-such-font.woff" in p for p in report["problems"]), report["problems"]
    formulas = report["formulas"]
    assert formulas["tab_stops"] == 1 and formulas["spoken"] < formulas["frames"], formulas
    alts = _alt_failures(reports)[name]
    assert len(alts) == 2 and "no alt text" in alts[0] and "'fig_3.png'" in alts[1], alts
    return {where for where, _ in report["violations"]} | {a.split()[0] for a in alts}


def test_the_site_checks_catch_injected_defects(site, browser):
    _injected_defects_found(browser, site, "03_sinusoidal_encoding.html")


def test_the_deck_checks_catch_injected_defects_on_a_later_slide(decks, browser):
    """The walk reaches the fourth slide and reports the defects there, and only there."""
    places = _injected_defects_found(browser, decks, _SMALL_DECK)
    assert len(places) == 1 and places != {"0.0"}, places
