"""A corpus of learner-written answers the checkers' authors never saw (issue 38's measure).

Helper sessions briefed as learners who had not read the checkers wrote 275 answers to the 28
exercises of lessons 02-17 (``tests/learner_answers/fresh/``, one file each: the learner's note of
what they did, ``KIND``, ``CHECKER`` and ``answer``); a judge who had not written the checkers
rated every hint against the answer (``ratings.json``: NAMES the mistake, SPECIFIC true
difference, UNHELPFUL, MISLEADING), copying the words that carry its diagnosis. The files are kept
as the learners wrote them (lint does not read them), except that the partial-rotation answers
turn ``positions`` into a tensor, as the exercise now says it is a list.

Each answer must keep its verdict, and a hint rated NAMES or SPECIFIC must keep its words.
"""

from __future__ import annotations

import contextlib
import io
import json
import runpy
from pathlib import Path

import pytest

from tests.learner_answers import evaluate

FRESH = Path(__file__).parent / "learner_answers" / "fresh"
RATINGS = json.loads((FRESH / "ratings.json").read_text(encoding="utf-8"))

# The checkers judge values, not containers: these return the expected values as an integer
# array (bits asked as floats), a NumPy array (a mask asked as a tensor) and floats (offsets asked
# as integers), which the checkers accept by design (tests/test_exercises_encodings.py and
# test_exercises_attention.py hold such right answers). The learners meant them as mistakes.
SAME_VALUES = {
    "02_check_binary_encoding__int_dtype.py",
    "07_check_causal_mask__numpy_array.py",
    "11_check_relative_positions__float_offsets.py",
}


def _answer(name: str):
    with contextlib.redirect_stdout(io.StringIO()):
        return runpy.run_path(str(FRESH / name))["answer"]


@pytest.mark.parametrize("row", RATINGS, ids=[r["file"] for r in RATINGS])
def test_each_answer_keeps_its_verdict_and_its_hint(row):
    passed, printed = evaluate(row["checker"], _answer(row["file"]))
    expected = row["kind"] == "correct" or row["file"] in SAME_VALUES
    assert passed is expected, printed
    if row["words"]:
        assert row["words"] in printed, (row["words"], printed)


def test_the_corpus_is_fresh_and_the_hints_help():
    wrong = [r for r in RATINGS if r["kind"] == "wrong"]
    right = [r for r in RATINGS if r["kind"] == "correct"]
    assert len(wrong) >= 100 and len(right) >= 50
    assert {r["checker"] for r in wrong} >= {r["checker"] for r in right}
    helpful = sum(r["rating"] in ("NAMES", "SPECIFIC") for r in wrong)
    assert helpful / len(wrong) >= 0.85, helpful / len(wrong)
    assert all(r["words"] for r in wrong if r["rating"] in ("NAMES", "SPECIFIC"))
