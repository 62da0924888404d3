"""The site's editions as a reader meets them: English at the root, Chinese in ``zh_CN/``,
Japanese in ``ja/``.

Uses the site that ``COURSE_SITE_DIR`` names (``.ci/run`` builds it once for this file and
``tests/test_site.py``, which runs its every-page browser checks on both editions), else the one
built once per pytest session for every site test (``course_site``, ``tests/conftest.py``). Checks what only a translated edition has: a language switch on every page of both
editions that leads to the same page in the other, the edition's language on every page, its
own words (title, "Run this lesson" note), downloads that serve the translated notebook, and an
offline search that finds Chinese and Japanese words. The search runs in Chromium (skips without it).
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from urllib.parse import quote

import pytest
from _browser import CHROMIUM, LAUNCH_ARGS, ranked_pages, search_results

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import build_translation  # noqa: E402
import i18n  # noqa: E402

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the pin installs it
    sync_playwright = None

LANGUAGES = i18n.languages()


@pytest.fixture(scope="module")
def site(course_site) -> Path:
    """``COURSE_SITE_DIR``, else the site built once per session (``tests/conftest.py``)."""
    return course_site


@pytest.fixture(scope="module")
def editions(tmp_path_factory) -> dict[str, Path]:
    """Each translated edition's notebooks, as build_translation writes them."""
    out = {}
    for lang in LANGUAGES:
        out[lang] = tmp_path_factory.mktemp(lang)
        build_translation.build_translation(lang, out[lang])
    return out


def _pages(folder: Path) -> list[str]:
    """An edition's pages, relative to its root, without the other editions' folders."""
    pages = []
    for page in folder.rglob("*.html"):
        relative = page.relative_to(folder)
        if relative.parts[0] in ("_static", *LANGUAGES):
            continue
        pages.append(relative.as_posix())
    return sorted(pages)


_SWITCH = re.compile(r'<nav class="language-switch"[^>]*>(.*?)</nav>', re.S)
_LINK = re.compile(r'<a [^>]*href="([^"]+)" hreflang="([^"]+)"')


@pytest.mark.parametrize("lang", LANGUAGES)
def test_both_editions_have_the_same_pages(site, lang):
    english, translated = _pages(site), _pages(site / lang)
    assert len(english) >= 40 and english == translated


def _folder(site: Path, lang: str) -> Path:
    return site if lang == "en" else site / lang


@pytest.mark.parametrize("lang", ["en", *LANGUAGES])
def test_every_page_links_to_the_same_page_in_every_other_edition(site, lang):
    """With three editions, every page of each links the same page of the two others, in the
    order of ``EDITIONS`` (English, 简体中文, 日本語)."""
    others = [o for o in build_translation.EDITIONS if o != lang and o in ("en", *LANGUAGES)]
    assert len(others) == len(LANGUAGES), others  # English and every other translated edition
    folder = _folder(site, lang)
    pages = _pages(folder)
    assert len(pages) >= 40
    for page in pages:
        text = (folder / page).read_text(encoding="utf-8")
        switch = _SWITCH.search(text)
        assert switch, f"{lang}/{page}: no language switch"
        links = _LINK.findall(switch.group(1))
        wanted = [build_translation.EDITIONS[o].html_lang for o in others]
        assert [h for _, h in links] == wanted, (lang, page)
        for (href, _), other in zip(links, others, strict=True):
            target = ((folder / page).parent / href).resolve()
            expected = (_folder(site, other) / page).resolve()
            assert target == expected and expected.is_file(), (lang, page, href)


@pytest.mark.parametrize("lang", LANGUAGES)
def test_translated_pages_speak_their_language(site, lang):
    edition = build_translation.EDITIONS[lang]
    conf = build_translation.translations(Path("docs/conf.py"), lang)
    for page in _pages(site / lang):
        text = (site / lang / page).read_text(encoding="utf-8")
        assert f'<html lang="{edition.html_lang}"' in text, page
    lesson = (site / lang / "03_sinusoidal_encoding.html").read_text(encoding="utf-8")
    title = build_translation.translations(Path("notebooks/03_sinusoidal_encoding.ipynb"), lang)
    assert title["03 · The sinusoidal encoding"] in lesson
    assert conf["Run this lesson"] in lesson
    assert f"python scripts/build_translation.py --lang {lang}" in lesson
    assert f"jupyter lab _build/{lang}/notebooks/03_sinusoidal_encoding.ipynb" in lesson
    english = (site / "03_sinusoidal_encoding.html").read_text(encoding="utf-8")
    assert '<html lang="en"' in english and "build_translation" not in english


@pytest.mark.parametrize("lang", LANGUAGES)
def test_download_serves_the_translated_notebook(site, editions, lang):
    for name in ("03_sinusoidal_encoding.ipynb", "solutions/03_sinusoidal_encoding.ipynb"):
        served = json.loads((site / lang / "_sources" / name).read_text(encoding="utf-8"))
        built = json.loads((editions[lang] / "notebooks" / name).read_text(encoding="utf-8"))
        assert served == built, name
        english = json.loads((site / "_sources" / name).read_text(encoding="utf-8"))
        assert english == json.loads((ROOT / "notebooks" / name).read_text(encoding="utf-8"))


# ---------------------------------------------------------------- search, in the browser


@pytest.fixture(scope="module")
def page():
    if CHROMIUM is None or sync_playwright is None:
        pytest.skip("no browser: install Debian's chromium and the pinned playwright")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context()
        leaving = []

        def route(request_route) -> None:
            if re.match(r"(file:|data:|blob:)", request_route.request.url):
                request_route.continue_()
            else:
                leaving.append(request_route.request.url)
                request_route.abort()

        context.route("**/*", route)
        tab = context.new_page()
        yield tab
        assert leaving == [], leaving
        browser.close()


def _search(page, folder: Path, query: str) -> list[str]:
    page.goto(f"{folder.as_uri()}/search.html?q={quote(query)}")
    return search_results(page)


def _search_finds_the_lessons(page, folder: Path, lang: str, encoding, mask, rotary) -> None:
    """The edition's words for the sinusoidal encoding, the causal mask and rotary find lessons
    03 (first), 07 and 11 (top 3), shown as ranked; and each lesson's title words (the part
    before "：") find that lesson in the top 3."""
    found = _search(page, folder, encoding)
    assert found[:1] == ["03_sinusoidal_encoding.html"], found[:5]
    assert "07_masks.html" in _search(page, folder, mask)[:3]
    shown = _search(page, folder, rotary)
    assert "11_relative_and_rotary.html" in shown[:3], shown[:5]
    assert ranked_pages(page, rotary) == shown, "the in-page ranking is what is shown"
    for path, (_, title) in i18n.lesson_titles(lang).items():
        if "/solutions/" in path:
            continue
        words = re.sub(r"^\d\d\s*·\s*", "", title).split("：")[0]
        found = ranked_pages(page, words)  # one page load, not one per lesson
        assert f"{Path(path).stem}.html" in found[:3], (path, words, found[:5])


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang.startswith("zh")])
def test_chinese_search_finds_chinese_words(site, page, lang):
    _search_finds_the_lessons(page, site / lang, lang, "位置编码", "因果掩码", "旋转位置编码")


@pytest.mark.parametrize("lang", [lang for lang in LANGUAGES if lang == "ja"])
def test_japanese_search_finds_japanese_words(site, page, lang):
    """Sphinx's TinySegmenter alone indexes 位置 and エンコーディング, never the word typed whole;
    the course's splitter (scripts/_search_ja.py) keeps the terms whole, and the query splitter
    cuts what a reader types without spaces into the words the index holds."""
    folder = site / lang
    _search_finds_the_lessons(
        page, folder, lang, "位置エンコーディング", "因果マスク", "回転位置埋め込み"
    )
    for query, lesson in (
        ("外挿", "12_length_extrapolation"),
        ("等比数列", "03_sinusoidal_encoding"),
    ):
        found = ranked_pages(page, query)
        assert f"{lesson}.html" in found[:5], (query, found[:8])
    assert "03_sinusoidal_encoding.html" in ranked_pages(page, "底")  # one character, kept


_SECTION_LINK = re.compile(r'<a [^>]*href="([0-9]{2}_[a-z_]+\.html)#([^"]+)"')


@pytest.mark.parametrize("lang", ["en", *LANGUAGES])
def test_the_faqs_section_links_land_on_their_sections(site, lang):
    """Every link of the FAQ to a lesson's section reaches an element of that id, in the English
    edition and in each translated one (whose anchors are its translated headings')."""
    from urllib.parse import unquote

    folder = site if lang == "en" else site / lang
    faq = (folder / "faq.html").read_text(encoding="utf-8")
    links = _SECTION_LINK.findall(faq)
    assert len(links) >= 15, links
    missing = [
        (page, anchor)
        for page, anchor in links
        if f'id="{unquote(anchor)}"' not in (folder / page).read_text(encoding="utf-8")
    ]
    assert not missing, missing
