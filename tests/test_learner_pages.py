"""The learner's pages (issue 41): the README is a learner's page under 1,500 words that links the
guides for lecturers and maintainers, and the FAQ answers the questions learners ask after the
course, each with a link to the section that shows it; every such link resolves, in English and
in every translated edition (whose headings, and so anchors, are translated)."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest
from myst_parser.slugs import github_slugify

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = ROOT / "notebooks"
sys.path.insert(0, str(ROOT / "scripts"))

import build_translation  # noqa: E402
import i18n  # noqa: E402

FAQ = Path("notebooks/faq.md")
GUIDES = ("notebooks/guide_lecturers.md", "notebooks/guide_maintainers.md")
README_WORDS = 1500
_LINK = re.compile(r"\]\(([^)\s#]+)(?:#([^)\s]+))?\)")
_HEADING = re.compile(r"^#{1,6} (.+?)\s*$", re.M)
_FENCE = re.compile(r"^```.*?^```", re.M | re.S)


def words(markdown: str) -> int:
    """Words of a markdown page: whitespace-separated tokens with a letter or digit (table
    pipes, arrows and HTML comments such as the generators' markers are not words)."""
    text = re.sub(r"<!--.*?-->", " ", markdown, flags=re.S)
    return sum(bool(re.search(r"\w", token)) for token in text.split())


def headings(relative: str, table: dict[str, str] | None = None) -> set[str]:
    """The anchors of a page's headings (``#`` to ``######``, as MyST makes them), translated
    with ``table`` when given."""
    path = NOTEBOOKS / relative
    if path.suffix == ".ipynb":
        cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
        text = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "markdown")
    else:
        text = path.read_text(encoding="utf-8")
    found = _HEADING.findall(_FENCE.sub("", text))
    table = table or {}
    return {github_slugify(table.get(h, h)) for h in found}


def broken_links(text: str, lang: str | None = None) -> list[str]:
    """Links of a page in ``notebooks/`` whose file or heading anchor does not exist."""
    broken = []
    for target, anchor in _LINK.findall(text):
        if target.startswith(("http://", "https://")):
            continue
        if not (NOTEBOOKS / target).is_file():
            broken.append(target)
            continue
        if anchor:
            table = None
            if lang is not None:
                table = build_translation.translations(Path("notebooks") / target, lang)
            if anchor not in headings(target, table):
                broken.append(f"{target}#{anchor}")
    return broken


def test_the_readme_is_a_learners_page_under_1500_words():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert words(readme) < README_WORDS, words(readme)
    sections = re.findall(r"^## (.+)$", readme, flags=re.M)
    assert sections[:4] == [
        "What you will learn",
        "Course map",
        "Quick start: two commands",
        "How to use the course",
    ], sections
    for marker in ("course-map", "solutions-table", "install-and-open", "test-command"):
        assert f"<!-- {marker} -->" in readme, marker
    for guide in GUIDES:
        assert f"]({guide})" in readme, guide
    assert "](notebooks/faq.md#the-fast-path-to-rotary)" in readme
    for lecturer_text in ("## For lecturers: grading", "jupyterlab-rise", "nbgrader autograde"):
        assert lecturer_text not in readme, lecturer_text


def test_the_word_count_counts_words_only():
    assert words("| a | b |\n|---|---|\n<!-- x y z -->\n02 → 03, `code` (c)") == 6


def test_the_guides_hold_what_left_the_readme():
    lecturers = (ROOT / GUIDES[0]).read_text(encoding="utf-8")
    maintainers = (ROOT / GUIDES[1]).read_text(encoding="utf-8")
    for heading in ("## Grading", "## Slides and the lecture plan"):
        assert heading in lecturers, heading
    assert "nbgrader autograde" in lecturers and "jupyterlab-rise" in lecturers
    for text in ("Adding a lesson", "Mutation testing", "<!-- sittings -->", "<!-- trains -->"):
        assert text in maintainers, text
    for guide in GUIDES:
        assert broken_links((ROOT / guide).read_text(encoding="utf-8")) == [], guide


QUESTIONS = [
    "rather than concatenate",
    "survive the layers",
    "sin and cos",
    "base 10,000",
    "use rotary",
    "ALiBi and rotary each give up",
    "Which encoding should I use",
    "past its training length",
    "rope configuration",
    "fast path to rotary",
]


def test_the_faq_answers_each_question_with_a_link_to_a_lesson_section():
    text = (ROOT / FAQ).read_text(encoding="utf-8")
    sections = re.split(r"^## ", text, flags=re.M)[1:]
    for question in QUESTIONS:
        (section,) = [s for s in sections if question in s.splitlines()[0]]
        assert re.search(r"\]\(\d\d_\w+\.ipynb", section), question
    answers = [s for s in sections if "fast path" not in s.splitlines()[0]]
    assert all(re.search(r"\]\(\d\d_\w+\.ipynb#", s) for s in answers)
    fast = sections[-1]
    order = [int(n) for n in re.findall(r"^\d\. \[(\d\d) ·", fast, flags=re.M)]
    assert order == [2, 3, 4, 11, 16], order
    assert fast.count("skip") + fast.count("skim") >= 5


def test_every_faq_link_resolves():
    assert broken_links((ROOT / FAQ).read_text(encoding="utf-8")) == []


def test_a_broken_anchor_is_found():
    link = "[x](04_linear_offset_proof.ipynb#why-both-sin-and-cos)"
    assert broken_links(link) == []
    assert broken_links(link.replace("cos)", "tan)")) == [
        "04_linear_offset_proof.ipynb#why-both-sin-and-tan"
    ]
    assert broken_links("[x](no_such_page.md)") == ["no_such_page.md"]


@pytest.mark.parametrize("lang", i18n.languages())
def test_every_faq_link_resolves_in_the_translated_edition(lang):
    text = (ROOT / FAQ).read_text(encoding="utf-8")
    translated = i18n.translate_markdown(text, build_translation.translations(FAQ, lang))
    assert translated != text
    assert broken_links(translated, lang) == []


def test_a_translated_section_link_keeps_its_page_and_has_an_anchor():
    from _i18n_checks import verbatim_problems

    english = "see [a](05_x.ipynb#add-or-concatenate)"
    assert verbatim_problems(english, "见 [a](05_x.ipynb#相加还是拼接)") == []
    assert verbatim_problems(english, "见 [a](05_x.ipynb)") != []
    assert verbatim_problems(english, "见 [a](06_x.ipynb#相加还是拼接)") != []


@pytest.mark.parametrize("lang", i18n.languages())
def test_the_readmes_fast_path_link_resolves_in_the_translated_edition(lang):
    readme = i18n.translate_markdown(
        i18n.readme_part((ROOT / "README.md").read_text(encoding="utf-8")),
        build_translation.translations(Path("README.md"), lang),
    )
    (anchor,) = re.findall(r"\]\(notebooks/faq\.md#([^)]+)\)", readme)
    assert anchor in headings("faq.md", build_translation.translations(FAQ, lang))
