"""Accessibility of the site and the decks in a real browser: axe-core and our own checks.

axe-core (WCAG 2.0/2.1, levels A and AA) runs in Debian's Chromium driven by Playwright over a
sample of pages (the machine's time is short): the site of a small course (lessons 03 and 06, the
glossary, the index) at desktop width, lesson 03 also at phone width and in dark mode, and every
slide of lesson 06's deck with the decks' index and glossary pages. Every run must find 0 violations.
axe-core itself comes from the pinned PyPI package ``axe-playwright-python`` (its ``axe.min.js``,
axe-core 4.12.1), read from disk and injected into the page: nothing is fetched at test time.

Our own checks, which axe cannot make:

- formulas are not keyboard tab stops, and each keeps its assistive MathML (a screen reader's
  spoken text);
- the deck's navigation arrows are invisible unless the mouse or the keyboard focus is on them;
- no font or other file is requested that the offline copy lacks (MathJax_AMS-Regular.otf was);
- every figure has a text alternative that says something: not a file path, not nbconvert's
  "No description has been provided for this image" (marked xfail until the figures get theirs).

Skips with a message where Playwright, Chromium or the axe package is missing. Takes minutes: it
runs when named on the command line (``.ci/run`` does so in its browser step) or with
COURSE_BROWSER_TESTS=1.
"""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import sys
from pathlib import Path

import pytest
from _browser import CHROMIUM, LAUNCH_ARGS

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_site  # noqa: E402
from build_slides import build_slides  # noqa: E402

SITE_LESSONS = ("03_sinusoidal_encoding", "06_scaled_dot_product_attention")
SITE_SOLUTIONS: tuple[str, ...] = ()
SITE_PAGES = ("glossary",)
DECKS = ("06_scaled_dot_product_attention",)
WCAG_TAGS = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
NO_DESCRIPTION = "No description has been provided"


def _skip_reason() -> str | None:
    if importlib.util.find_spec("playwright") is None:
        return "playwright is not installed (pip install -r requirements.txt)"
    if CHROMIUM is None:
        return "no Chromium at /usr/bin/chromium (apt-get install chromium)"
    if importlib.util.find_spec("axe_playwright_python") is None:
        return "axe-core is missing: pip install -r requirements.txt (axe-playwright-python)"
    return None


def figure_alt_problems(alts: list[str | None]) -> list[str]:
    """The alt texts of figure images that do not describe them: missing, empty, a file path or
    nbconvert's placeholder."""
    bad = []
    for alt in alts:
        text = (alt or "").strip()
        if not text:
            bad.append("no alt text")
        elif NO_DESCRIPTION.lower() in text.lower():
            bad.append(f"placeholder: {text[:50]!r}")
        elif re.search(r"\.(png|jpe?g|svg|gif|webp)$", text, re.I) or (
            "/" in text and " " not in text
        ):  # a path; a sentence may still say "1/4" or "sqrt(d_k)/2"
            bad.append(f"a file path: {text[:50]!r}")
    return bad


def test_figure_alt_rule_tells_a_description_from_a_path():
    """The rule itself (no browser): it passes a sentence and catches the three failures."""
    good = "Heat map of the encoding: the left columns change fast, the right ones slowly."
    assert figure_alt_problems([good]) == []
    assert len(figure_alt_problems(["", None, "../_images/abc.png", NO_DESCRIPTION + "."])) == 4
    assert figure_alt_problems(["_images/x.svg"]) == ["a file path: '_images/x.svg'"]
    assert figure_alt_problems(["Accuracy falls to chance, 1/8, past twice the length."]) == []


@pytest.fixture(scope="module")
def _own_step(request):
    here = Path(__file__).resolve()
    named = any(Path(str(arg).split("::")[0]).resolve() == here for arg in request.config.args)
    if not named and os.environ.get("COURSE_BROWSER_TESTS") != "1":
        pytest.skip(
            "accessibility browser tests run as their own step: python -m pytest "
            "tests/test_accessibility_browser.py (or set COURSE_BROWSER_TESTS=1)"
        )


def _axe_script() -> str:
    from importlib.resources import files

    script = (files("axe_playwright_python") / "axe.min.js").read_text(encoding="utf-8")
    assert script.startswith("/*! axe v4."), script[:40]
    return script


@pytest.fixture(scope="module")
def built(tmp_path_factory, browser) -> dict[str, Path]:
    """A small course's site and the sample decks, built by the real build functions."""
    tmp = tmp_path_factory.mktemp("access")
    notebooks = tmp / "course" / "notebooks"
    (notebooks / "solutions").mkdir(parents=True)
    for stem in SITE_LESSONS:
        shutil.copy2(ROOT / "notebooks" / f"{stem}.ipynb", notebooks)
    for stem in SITE_SOLUTIONS:
        shutil.copy2(ROOT / "notebooks" / "solutions" / f"{stem}.ipynb", notebooks / "solutions")
    for name in SITE_PAGES:
        shutil.copy2(ROOT / "notebooks" / f"{name}.md", notebooks)
    site = build_site.build_site(tmp / "site", root=tmp / "course")
    decks = tmp / "slides"
    build_slides([ROOT / "notebooks" / f"{stem}.ipynb" for stem in DECKS], decks)
    return {"site": site, "slides": decks}


class Browser:
    """One Chromium; each page records failed requests, console errors and requests leaving
    the machine."""

    def __init__(self, playwright, axe: str) -> None:
        self.browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        self.axe = axe

    def open(self, path: Path, width: int = 1280, height: int = 720, fragment: str = ""):
        context = self.browser.new_context(viewport={"width": width, "height": height})
        page = context.new_page()
        page.problems = []
        page.on("requestfailed", lambda r: page.problems.append(f"failed request: {r.url}"))
        page.on(
            "console",
            lambda m: page.problems.append(f"console: {m.text[:120]}") if m.type == "error" else 0,
        )

        def guard(route):
            if route.request.url.startswith(("file:", "data:", "about:", "blob:")):
                route.continue_()
            else:
                page.problems.append(f"request leaving the machine: {route.request.url}")
                route.abort()

        context.route("**/*", guard)
        page.goto(path.resolve().as_uri() + fragment)
        page.wait_for_load_state("load")
        if path.name.endswith(".slides.html"):
            page.wait_for_function("window.Reveal && Reveal.isReady()", timeout=60_000)
        self.typeset(page)
        return page

    @staticmethod
    def typeset(page) -> None:
        page.wait_for_function(
            "() => !document.querySelector('.math, script[type^=\"math/tex\"]')"
            " || (window.MathJax && MathJax.isReady)",
            timeout=60_000,
        )
        page.evaluate(
            "() => new Promise(done => window.MathJax && MathJax.Hub"
            " ? MathJax.Hub.Queue(() => done(true)) : done(true))"
        )

    def violations(self, page) -> list[str]:
        """axe-core's WCAG 2.1 A/AA violations on the page as it is now, one line each."""
        if not page.evaluate("() => !!window.axe"):
            page.evaluate(self.axe)
        found = page.evaluate(
            "async tags => (await axe.run(document, {runOnly: {type: 'tag', values: tags},"
            " resultTypes: ['violations'], preload: false})).violations.map(v => v.id + ' (' + v.impact + '): '"
            " + v.nodes.slice(0, 3).map(n => n.target.join(' ')).join(', '))",
            WCAG_TAGS,
        )
        return list(found)

    def close(self) -> None:
        self.browser.close()


@pytest.fixture(scope="module")
def browser(_own_step):
    reason = _skip_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = Browser(playwright, _axe_script())
        yield chromium
        chromium.close()


def _site_pages(site: Path) -> list[Path]:
    names = [*SITE_LESSONS, *(f"solutions/{s}" for s in SITE_SOLUTIONS), *SITE_PAGES, "index"]
    return [site / f"{name}.html" for name in names]


_TAB_STOPS = """() => ({
  formulas: document.querySelectorAll('.MathJax, .MathJax_Display').length,
  formula_tab_stops: [...document.querySelectorAll('.MathJax, .MathJax_Display, .MathJax *')]
    .filter(el => el.tabIndex >= 0).length,
  spoken: [...document.querySelectorAll('.MJX_Assistive_MathML math')]
    .filter(m => !m.closest('.MathJax[aria-hidden="true"], .MathJax [aria-hidden="true"]'))
    .length,
  frames: document.querySelectorAll('span.MathJax, div.MathJax_Display > span.MathJax').length,
})"""


@pytest.mark.parametrize(
    "width, dark", [(1280, False), (375, False), (1280, True)], ids=["desktop", "phone", "dark"]
)
def test_site_pages_pass_axe_and_load_everything(built, browser, width, dark):
    failures = {}
    paths = (
        _site_pages(built["site"]) if width == 1280 and not dark else _site_pages(built["site"])[:1]
    )
    for path in paths:
        page = browser.open(path, width=width, height=900)
        if dark:
            page.evaluate("() => { document.documentElement.dataset.theme = 'dark'; }")
            page.wait_for_timeout(300)
        problems = browser.violations(page) + page.problems
        if problems:
            failures[path.relative_to(built["site"]).as_posix()] = problems
        page.context.close()
    assert not failures, failures


def test_deck_slides_pass_axe_one_by_one(built, browser):
    failures, slides = {}, 0
    for stem in DECKS:
        page = browser.open(built["slides"] / f"{stem}.slides.html")
        for h, v in page.evaluate(
            "() => Reveal.getSlides().map(s => [Reveal.getIndices(s).h, Reveal.getIndices(s).v || 0])"
        ):
            page.evaluate(f"() => Reveal.slide({h}, {v})")
            browser.typeset(page)
            slides += 1
            for line in browser.violations(page):
                failures.setdefault(line.split(":")[0], []).append(f"{stem} {h}.{v}")
        failures.update({f"{stem}: {p}": [] for p in page.problems})
        page.context.close()
    for name in ("index.html", "glossary.html"):
        page = browser.open(built["slides"] / name)
        failures.update({f"{name}: {line}": [] for line in browser.violations(page)})
        page.context.close()
    assert slides >= 10
    assert not failures, failures


def test_formulas_are_no_tab_stops_but_keep_their_spoken_text(built, browser):
    for path in (
        built["site"] / f"{SITE_LESSONS[0]}.html",
        built["slides"] / f"{DECKS[0]}.slides.html",
    ):
        page = browser.open(path)
        counts = page.evaluate(_TAB_STOPS)
        page.context.close()
        assert counts["formulas"] >= 20, (path.name, counts)
        assert counts["formula_tab_stops"] == 0, (path.name, counts)
        assert counts["spoken"] == counts["frames"] > 0, (path.name, counts)


def test_deck_controls_cover_nothing_until_used_and_slide_number_contrast(built, browser):
    page = browser.open(built["slides"] / f"{DECKS[0]}.slides.html", fragment="#/2")
    opacity = "() => getComputedStyle(document.querySelector('.reveal .controls')).opacity"
    assert page.evaluate(opacity) == "0", "the arrows show over the slide"
    page.hover(".reveal .controls .navigate-right")
    page.wait_for_timeout(400)
    assert page.evaluate(opacity) == "1", "the arrows do not appear under the mouse"
    ratio = page.evaluate(
        """() => {
        const rgb = c => c.match(/\\d+(\\.\\d+)?/g).slice(0, 3).map(Number).map(x => x / 255)
          .map(x => x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4);
        const lum = c => { const [r, g, b] = rgb(c); return 0.2126 * r + 0.7152 * g + 0.0722 * b; };
        const style = getComputedStyle(document.querySelector('.reveal .slide-number'));
        const [a, b] = [lum(style.color), lum(style.backgroundColor)].sort((x, y) => y - x);
        return (a + 0.05) / (b + 0.05);
        }"""
    )
    page.context.close()
    assert ratio >= 4.5, f"slide number contrast {ratio:.2f}:1 < 4.5:1"


_FIGURE_ALTS = """() => [...document.querySelectorAll(
  'article img, .jp-OutputArea-output img, .cell_output img, .reveal .slides img')]
  .filter(img => !img.closest('.MathJax, .MathJax_Display'))
  .map(img => img.getAttribute('alt'))"""


def test_every_figure_has_a_text_alternative(built, browser):
    pages = _site_pages(built["site"]) + [built["slides"] / f"{s}.slides.html" for s in DECKS]
    bad, seen = {}, 0
    for path in pages:
        page = browser.open(path)
        alts = page.evaluate(_FIGURE_ALTS)
        page.context.close()
        seen += len(alts)
        if figure_alt_problems(alts):
            bad[path.name] = figure_alt_problems(alts)[:3]
    assert seen >= 5, "too few figures in the sample"
    assert not bad, bad
