"""The lecture plan quotes each section by its lesson's heading, in every edition (issue 43:
the Chinese plan quoted 62 titles its lessons did not use, so a lecturer could not find the
"run live" cell by its name)."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import _plan_titles as plan  # noqa: E402

HEADINGS = {"03": {"Why a sine and a cosine": "为什么要正弦和余弦", "The formula": "公式"}}


def test_the_english_plan_quotes_headings_as_they_read():
    assert plan.english_problems() == []


def test_both_kinds_of_plan_line_are_read():
    assert plan.quotes("- 03 *The formula*: Why?") == ("03", ["The formula"])
    assert plan.quotes("12 *A* and *B*: the figure") == ("12", ["A", "B"])
    line = "- [03 · Sines](03_sinusoidal_encoding.ipynb) (run time 6 s): *A: b*; *C*"
    assert plan.quotes(line) == ("03", ["A: b", "C"])
    assert plan.quotes("- **Ask the room:** *not a quote*") is None
    assert plan.plain("Why a sine *and* a cosine") == "Why a sine and a cosine"


def test_a_translated_line_is_made_to_quote_the_translated_headings():
    english = "03 *Why a sine and a cosine* and *The formula*: what do they show?"
    wrong = "03 *为什么用正弦与余弦* 和 *式子*：它们说明什么？"
    assert plan.translation_problems(english, wrong, HEADINGS) == [
        "quotes ['为什么用正弦与余弦', '式子'] where the lessons' headings read "
        "['为什么要正弦和余弦', '公式']"
    ]
    fixed = plan.follow(english, wrong, HEADINGS)
    assert fixed == "03 *为什么要正弦和余弦* 和 *公式*：它们说明什么？"
    assert plan.translation_problems(english, fixed, HEADINGS) == []
    # a heading without a translation yet, or fewer quotes than the English: left alone
    assert plan.follow("03 *Untranslated*: x", "03 *未译*：x", HEADINGS) == "03 *未译*：x"
    assert (
        plan.follow(english, "03 只有文字：它们说明什么？", HEADINGS)
        == "03 只有文字：它们说明什么？"
    )


def test_an_edit_of_the_quotes_alone_is_recognised():
    before = "03 *Why a sine*: one-word steps of *a sine*"
    assert plan.without_quotes(before) == plan.without_quotes(
        "03 *The formula*: one-word steps of *x*"
    )
    assert plan.without_quotes(before) != plan.without_quotes("03 *The formula*: other words")


def test_a_quote_touching_chinese_characters_is_still_a_quote():
    english = "03 *Why a sine and a cosine* and *The formula*: the figure"
    assert plan.translation_problems(english, "03 *为什么要正弦和余弦*与*公式*：图", HEADINGS) == []
    assert (
        plan.follow(english, "03 *甲*与*乙*：图", HEADINGS) == "03 *为什么要正弦和余弦*与*公式*：图"
    )
