"""The naive-scheme criteria decide exactly at their thresholds, look at every offset they
promise (the first and the last), and print the reason a learner reads, word for word.

The schemes here are tiny hand-made tables whose distances are exact binary fractions, so a
distance can equal a threshold exactly and ``<=`` versus ``<`` makes a visible difference.
"""

import numpy as np
import pytest

from helpers.encodings import naive


def scaled_index(scale: float):
    return lambda positions: np.asarray(positions, dtype=np.float64) * scale


# --------------------------------------------------------------------- unique per position


def test_unique_flips_at_the_tolerance(capsys):
    # neighbours exactly 0.5 apart: a clash at tol = 0.5 (distance <= tol), none at 0.25
    assert not naive.unique_per_position(scaled_index(0.5), seq_len=4, tol=0.5)
    assert capsys.readouterr().out == (
        "unique per position: NO - positions 0 and 1 get the same encoding "
        "(distance 5.0e-01 <= 0.5)\n"
    )
    assert naive.unique_per_position(scaled_index(0.5), seq_len=4, tol=0.25)
    assert capsys.readouterr().out == (
        "unique per position: yes - the closest two of 4 positions are 0.5 apart\n"
    )


def test_unique_checks_the_first_and_the_last_offset(capsys):
    def first_equals_last(positions):
        values = np.asarray(positions, dtype=np.float64)
        values[-1] = values[0]  # only offset seq_len - 1 clashes
        return values

    assert not naive.unique_per_position(first_equals_last, seq_len=6)
    assert "positions 0 and 5 get the same encoding" in capsys.readouterr().out

    def neighbours_clash(positions):
        values = np.asarray(positions, dtype=np.float64)
        values[3] = values[2]  # only offset 1 clashes (at t = 2)
        return values

    assert not naive.unique_per_position(neighbours_clash, seq_len=6)
    assert "positions 2 and 3 get the same encoding" in capsys.readouterr().out


def test_unique_reports_the_closest_pair_over_all_offsets(capsys):
    # steps 1, 1, 0.25, 1: the closest pair sits at offset 1; the widest gap never wins
    table = np.array([0.0, 1.0, 2.0, 2.25, 3.25])
    assert naive.unique_per_position(lambda p: table[: len(p)], seq_len=5)
    assert capsys.readouterr().out.endswith("the closest two of 5 positions are 0.25 apart\n")


# ---------------------------------------------------------------------- consistent distance


def one_jump(positions):
    """Steps of 1 everywhere, except 1.5 from t = 2 to t = 3."""
    t = np.asarray(positions, dtype=np.float64)
    return t + 0.5 * (t >= 3)


def test_consistent_distance_flips_at_the_tolerance(capsys):
    # the step of 1 at t = 2 is 1.5 instead of 1: off by 0.5 = tol * (1 + 1) at tol = 0.25
    assert naive.consistent_distance(one_jump, lengths=(8,), max_delta=1, tol=0.25)
    assert capsys.readouterr().out == (
        "consistent distance: yes - steps of 1..1 have one size each, in sentences of 8\n"
    )
    assert not naive.consistent_distance(one_jump, lengths=(8,), max_delta=1, tol=0.2)
    assert capsys.readouterr().out == (
        "consistent distance: NO - a step of 1 has size 1 from t=0 in a sentence of 8 "
        "but 1.5 from t=2 in a sentence of 8\n"
    )


def test_consistent_distance_checks_max_delta_and_no_further(capsys):
    # max_delta = 1 must still check the step of 1; max_delta = shortest length - 1 is allowed
    assert not naive.consistent_distance(one_jump, lengths=(8,), max_delta=1, verbose=False)
    assert naive.consistent_distance(naive.index_encoding, lengths=(4, 9), max_delta=3)
    assert capsys.readouterr().out == (
        "consistent distance: yes - steps of 1..3 have one size each, in sentences of 4, 9\n"
    )


def test_consistent_distance_compares_with_the_shortest_sentence(capsys):
    def longer_is_wider(positions):  # a step of 1 is 1 in short sentences, 2 in long ones
        t = np.asarray(positions, dtype=np.float64)
        return t * (1.0 if len(t) < 10 else 2.0)

    assert not naive.consistent_distance(longer_is_wider, lengths=(16, 8), max_delta=2)
    assert capsys.readouterr().out == (
        "consistent distance: NO - a step of 1 has size 1 from t=0 in a sentence of 8 "
        "but 2 from t=0 in a sentence of 16\n"
    )


# ------------------------------------------------------------ bounded and length-independent


def constant(value: float, long_value: float | None = None):
    """Every position encoded as ``value`` (``long_value`` in sentences of 100 words or more)."""

    def encode(positions):
        n = len(positions)
        return np.full(n, value if long_value is None or n < 100 else long_value)

    return encode


def test_bounded_flips_at_the_bound(capsys):
    assert naive.bounded_and_length_independent(constant(1.0), lengths=(10, 100))
    assert capsys.readouterr().out == (
        "bounded, length-independent: yes - every value in [-1, 1] at lengths up to 100, "
        "prefixes unchanged\n"
    )
    assert not naive.bounded_and_length_independent(constant(1.0 + 2**-20), lengths=(100, 10))
    assert capsys.readouterr().out == (
        "bounded, length-independent: NO - largest |value| at lengths 10, 100: 1, 1 "
        "(outside [-1, 1])\n"
    )
    assert naive.bounded_and_length_independent(constant(-2.5), lengths=(10, 100), bound=2.5)


def test_length_independence_flips_at_its_tolerance(capsys):
    # a prefix that moves by exactly 1e-12 still counts as unchanged; by 2 it does not
    assert naive.bounded_and_length_independent(constant(0.0, 1e-12), lengths=(10, 100))
    capsys.readouterr()
    assert not naive.bounded_and_length_independent(constant(0.0, 3e-12), lengths=(10, 100))
    assert not naive.bounded_and_length_independent(
        constant(-1.0, 1.0), lengths=(100, 10), bound=4.0
    )
    assert capsys.readouterr().out.splitlines()[-1] == (
        "bounded, length-independent: NO - position 0 is encoded differently in sentences of "
        "10 and 100"
    )


def test_length_independence_compares_every_longer_sentence():
    # only the longest sentence changes the prefix
    def changes_at_1000(positions):
        return np.full(len(positions), 0.5 if len(positions) >= 1000 else 0.0)

    assert not naive.bounded_and_length_independent(
        changes_at_1000, lengths=(10, 100, 1000), verbose=False
    )


@pytest.mark.parametrize("lengths", [(10, 100), [100, 10]])
def test_two_lengths_are_enough(lengths):
    assert naive.bounded_and_length_independent(constant(0.5), lengths=lengths, verbose=False)


# ----------------------------------------------------------------------------- deterministic


def test_deterministic_prints_its_reason(capsys):
    assert naive.deterministic(naive.index_encoding, seq_len=3)
    assert not naive.deterministic(naive.random_encoding, seq_len=3)
    assert capsys.readouterr().out == (
        "deterministic: yes - two calls agree exactly\n"
        "deterministic: NO - two calls on the same positions disagree\n"
    )


def test_no_near_collisions_counts_an_exact_tie_whatever_the_round_off(capsys):
    # 8-bit binary codes: positions 0 and 2 are exactly as far apart (1) as the closest
    # neighbours. Whether 1 comes out as 1 + eps must not change which pair is named (issue 23).
    def binary_nudged(positions, sign):
        table = naive.binary_encoding(positions, num_bits=8)
        return table * (1 + sign * 4 * np.finfo(float).eps * (positions[:, None] % 3 == 0))

    for sign in (-1, 0, 1):
        assert naive.no_near_collisions(lambda p, s=sign: binary_nudged(p, s)) is False
        assert "positions 0 and 2 are 1 apart" in capsys.readouterr().out
