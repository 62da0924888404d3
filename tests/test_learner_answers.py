"""The learner-answer corpus (tests/learner_answers/): every wrong answer fails with a hint that
says what is wrong with it, every right answer written another way passes.

``python scripts/evaluate_answer.py --corpus`` prints the per-checker summary (corpus size, share
of hints that name the mistake or state a specific difference).
"""

from __future__ import annotations

import re

import pytest

import helpers.exercises as exercises
from tests.learner_answers import evaluate, hint_of, load

CORPUS = load()
WRONG = [a for a in CORPUS if a.words is not None]
RIGHT = [a for a in CORPUS if a.words is None]


@pytest.mark.parametrize("answer", WRONG, ids=lambda a: f"{a.checker}-{a.name}")
def test_a_wrong_answer_fails_with_a_hint_that_fits(answer):
    ok, out = evaluate(answer.checker, answer.fn)
    assert ok is False, out
    said = hint_of(out) or out.splitlines()[0]  # no hint: the verdict line says what is wrong
    assert re.search(answer.words, said), f"{answer.name}: hint does not fit:\n{out}"


@pytest.mark.parametrize("answer", RIGHT, ids=lambda a: f"{a.checker}-{a.name}")
def test_a_right_answer_written_differently_passes(answer):
    ok, out = evaluate(answer.checker, answer.fn)
    assert ok is True, out


@pytest.mark.parametrize("checker", exercises.__all__)
def test_every_checker_has_its_corpus(checker):
    wrong = [a for a in WRONG if a.checker == checker]
    right = [a for a in RIGHT if a.checker == checker]
    assert len(wrong) >= 10 and len(right) >= 3, (checker, len(wrong), len(right))
