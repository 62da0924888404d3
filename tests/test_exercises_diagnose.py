"""The diagnosis step (helpers/exercises/_diagnose.py) on hand-made answers: each relation is
found, round-off never changes the hint, and nothing is claimed that does not hold."""

from __future__ import annotations

import math

import numpy as np
import pytest

from helpers.exercises._diagnose import (
    Diagnosis,
    FailedCase,
    diagnose,
    knob_view,
    smallest_case,
)

RNG = np.random.default_rng(0)
E1 = RNG.normal(size=(5, 8))
E2 = RNG.normal(size=(3, 6))


def cases(transform, *expected):
    return [FailedCase(f"case {i}", (), transform(e), e) for i, e in enumerate(expected)]


@pytest.mark.parametrize(
    ("transform", "words"),
    [
        (lambda e: -e, "opposite sign"),
        (lambda e: 2 * math.pi * e, "times 2 pi"),
        (lambda e: e * 180 / math.pi, "180/pi"),
        (lambda e: e + 0.75, "plus 0.75"),
        (lambda e: e[..., ::-1], "reverse order along the columns"),
        (lambda e: np.roll(e, -1, axis=0), "your row m is the expected row m + 1"),
        (lambda e: e[..., np.r_[0:8:2, 1:8:2]] if e.shape[-1] == 8 else None, "halves"),
        (lambda e: np.where(np.arange(e.shape[-1]) < 2, e, 0.0), "columns 0-1 match"),
    ],
)
def test_each_relation_is_found_and_survives_round_off(transform, words):
    failing = cases(transform, E1)
    assert words in diagnose(failing)
    noisy = [
        FailedCase(c.label, c.args, c.got * (1 + 1e-9 * RNG.normal(size=c.got.shape)), c.expected)
        for c in failing
    ]
    assert diagnose(noisy) == diagnose(failing)


def test_a_relation_must_hold_on_every_failing_case():
    mixed = cases(lambda e: -e, E1) + cases(lambda e: 2 * e, E2)
    assert "opposite sign" not in diagnose(mixed) and "times 2" not in diagnose(mixed)


def test_round_off_size_differences_are_called_close_not_a_relation():
    hint = diagnose(cases(lambda e: e * (1 + 3e-5), E1))
    assert hint.startswith("your values are close to the expected ones")


def test_nothing_found_says_so_and_the_smallest_case_is_shown():
    failing = cases(lambda e: np.cos(7 * e) + e**3, E1, E2)
    assert diagnose(failing) == ""
    shown = smallest_case(failing)
    assert shown.startswith("on the smallest failing case, case 1:") and "expected" in shown


def test_a_single_number_gets_no_fitted_factor_or_offset():
    failing = [FailedCase("n=3", (), np.array(7.3), np.array(2.0))]
    assert diagnose(failing) == ""
    named = [FailedCase("n=3", (), np.array(6.0), np.array(3.0))]
    assert diagnose(named) == "your result is the expected ones times 2."


def test_no_offset_is_claimed_against_a_constant_expected_array():
    failing = [FailedCase("c", (), np.array([1e-3, 2e-3, 3e-3]), np.full(3, 5e4))]
    assert "plus" not in diagnose(failing)


def test_masks_polarity_and_regions():
    tril = np.tril(np.ones((4, 4), dtype=bool))
    assert "polarity is inverted" in diagnose([FailedCase("m", (), ~tril, tril)])
    strict = tril & ~np.eye(4, dtype=bool)  # also the causal mask shifted by one key: said so
    hint = diagnose([FailedCase("m", (), strict, tril)], Diagnosis(axes=("query", "key")))
    assert (
        hint
        == "your result is shifted by one along the keys: your key m is the expected key m + 1."
    )
    both = tril.copy()
    both[0, 3], both[3, 0] = True, False
    hint = diagnose([FailedCase("m", (), both, tril)], Diagnosis(axes=("query", "key")))
    assert hint == "keys 1-2 match, keys 0 and 3 differ."


def test_shapes():
    e = RNG.normal(size=(3, 5))
    assert "transposed" in diagnose([FailedCase("s", (), e.T, e)])
    hint = diagnose([FailedCase("s", (), e[:2], e)], Diagnosis(axes=("token", "feature")))
    assert hint.startswith("you return fewer tokens than expected on every failing case (2 instead")


def _line(args, slope=2.0, cut=None):
    (x,) = args
    return np.array([(slope * x if cut is None or x < cut else 2.0 * x) + 1.0])


def test_a_knob_setting_must_give_the_answer_on_the_passing_cases_too():
    # The answer is 3x + 1 below x = 5 and right (2x + 1) from there: slope 3 fits the failing cases,
    # but not the passing one, so "the formula with slope 3" would describe another answer.
    spec = Diagnosis(views=(knob_view(_line, {"slope": [(3.0, "slope 3")], "cut": [(5, "cut")]}),))
    answer = {x: _line((x,), 3.0, 5) for x in (1.0, 2.0, 7.0)}
    failing = [FailedCase(f"x={x}", (x,), answer[x], _line((x,))) for x in (1.0, 2.0)]
    passing = [FailedCase("x=7", (7.0,), answer[7.0], _line((7.0,)))]
    assert "slope 3." in diagnose(failing, spec)  # the failing cases alone: slope 3 fits
    hint = diagnose(failing, spec, passing)
    assert hint == "your result is what the formula gives with slope 3, and cut."
