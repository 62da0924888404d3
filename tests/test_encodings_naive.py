"""Unit tests of helpers.encodings.naive: the naive schemes, the six criteria, the score table."""

import functools
import math

import numpy as np
import pytest

import helpers
from helpers.encodings import frequencies, naive

T5 = np.arange(5)


def sinusoidal_scheme(positions, d_model=16):
    angles = np.asarray(positions, dtype=np.float64)[:, None] * frequencies(d_model)
    pe = np.empty((len(positions), d_model))
    pe[:, 0::2], pe[:, 1::2] = np.sin(angles), np.cos(angles)
    return pe


# --- schemes: hand-computed values -----------------------------------------------------------


def test_index_and_normalized_index():
    np.testing.assert_array_equal(naive.index_encoding(T5), [[0.0], [1.0], [2.0], [3.0], [4.0]])
    np.testing.assert_allclose(naive.normalized_index_encoding(T5)[:, 0], [0, 0.25, 0.5, 0.75, 1])
    # the same position t = 2 in a sentence of 9 words
    assert naive.normalized_index_encoding(np.arange(9))[2, 0] == 0.25
    np.testing.assert_array_equal(naive.normalized_index_encoding(np.arange(1)), [[0.0]])


def test_bounded_decreasing_has_no_division_by_zero():
    np.testing.assert_allclose(
        naive.bounded_decreasing_encoding(T5)[:, 0], [1, 1 / 2, 1 / 3, 1 / 4, 1 / 5]
    )


def test_binary_least_significant_bit_first_and_wraps():
    code = naive.binary_encoding(np.arange(8), num_bits=3)
    np.testing.assert_array_equal(code[5], [1.0, 0.0, 1.0])  # 5 = 1 + 4
    np.testing.assert_array_equal(code[6], [0.0, 1.0, 1.0])  # 6 = 2 + 4
    assert code.dtype == np.float64 and code.shape == (8, 3)
    np.testing.assert_array_equal(naive.binary_encoding(np.array([9]), 3), [[1.0, 0.0, 0.0]])


def test_single_sine_and_random():
    np.testing.assert_allclose(
        naive.single_sine_encoding(T5, omega=0.5)[:, 0], np.sin(0.5 * T5), atol=1e-15
    )
    helpers.seed_everything(0)  # random_encoding draws from the global generator
    first = naive.random_encoding(T5, dim=3)
    assert first.shape == (5, 3) and np.all(np.abs(first) <= 1.0)
    assert not np.array_equal(first, naive.random_encoding(T5, dim=3))


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: naive.index_encoding(np.array([0.0, 1.0])), TypeError, "positions"),
        (lambda: naive.index_encoding(np.arange(4).reshape(2, 2)), TypeError, "positions"),
        (lambda: naive.normalized_index_encoding(np.array([-1, 0])), ValueError, "positions"),
        (lambda: naive.binary_encoding(T5, num_bits=0), ValueError, "num_bits"),
        (lambda: naive.single_sine_encoding(T5, omega=0.0), ValueError, "omega"),
        (lambda: naive.random_encoding(T5, dim=0), ValueError, "dim"),
    ],
)
def test_scheme_bad_arguments(call, error, name):
    with pytest.raises(error, match=name):
        call()


# --- criteria: each one fails for the scheme it is meant to catch ---------------------------


def test_unique_catches_wrap_around_and_a_symmetric_sine(capsys):
    assert not naive.unique_per_position(naive.binary_encoding, seq_len=300)
    assert "positions 0 and 256 get the same encoding" in capsys.readouterr().out
    # sin(2 pi t / 16) is symmetric about its peak at t = 4: t = 3 and t = 5 collide
    sine = functools.partial(naive.single_sine_encoding, omega=2 * math.pi / 16)
    assert not naive.unique_per_position(sine, seq_len=16)
    assert "positions 3 and 5" in capsys.readouterr().out
    assert naive.unique_per_position(naive.index_encoding, seq_len=64)
    assert "closest two of 64 positions are 1 apart" in capsys.readouterr().out
    assert naive.unique_per_position(sinusoidal_scheme, verbose=False)
    assert capsys.readouterr().out == ""


def test_consistent_distance(capsys):
    assert naive.consistent_distance(naive.index_encoding)
    assert naive.consistent_distance(sinusoidal_scheme)
    assert not naive.consistent_distance(naive.normalized_index_encoding)
    out = capsys.readouterr().out
    # 1/15 in a sentence of 16 words, 1/63 in one of 64
    assert "size 0.0667 from t=0 in a sentence of 16 but 0.0159 from t=0 in a sentence of 64" in out
    assert not naive.consistent_distance(naive.bounded_decreasing_encoding, verbose=False)
    assert not naive.consistent_distance(naive.binary_encoding, verbose=False)  # 1 vs sqrt(2)


def test_consistent_distance_prints_enough_digits(capsys):
    slow = functools.partial(naive.single_sine_encoding, omega=1e-3)
    assert not naive.consistent_distance(slow)
    out = capsys.readouterr().out
    assert "size 0.001 from t=0" in out and "but 0.000999997 from t=2" in out


def test_bounded_and_length_independent(capsys):
    assert not naive.bounded_and_length_independent(naive.index_encoding)
    assert "9, 99, 999, 9999" in capsys.readouterr().out
    assert not naive.bounded_and_length_independent(naive.normalized_index_encoding)
    assert "position 1 is encoded differently in sentences of 10 and 100" in capsys.readouterr().out
    assert naive.bounded_and_length_independent(naive.bounded_decreasing_encoding)
    assert naive.bounded_and_length_independent(sinusoidal_scheme, lengths=(10, 2000))
    # a tighter bound rejects the sinusoidal table's values of 1
    assert not naive.bounded_and_length_independent(sinusoidal_scheme, (10, 20), bound=0.5)


def test_deterministic():
    helpers.seed_everything(0)  # random_encoding draws from the global generator
    assert not naive.deterministic(naive.random_encoding, verbose=False)
    assert naive.deterministic(naive.binary_encoding, verbose=False)


def circle(positions):
    """One (sin, cos) pair at omega = 1: the scheme of exercise 4 in notebook 02."""
    return np.stack([np.sin(positions), np.cos(positions)], axis=1)  # (L, 2)


def test_the_circle_passes_the_first_five_criteria_but_not_the_sixth(capsys):
    # the first four criteria are necessary, not sufficient (exercise 4 of 02); the sixth, no
    # near-collisions, catches it: at omega = 1, 6 rad is 0.283 rad short of a full turn
    checks = list(naive.CRITERIA.values())
    assert all(check(circle, verbose=False) for check in checks[:5])
    assert not naive.no_near_collisions(circle, seq_len=7)
    neighbours, gap = 2 * math.sin(0.5), 2 * math.sin((2 * math.pi - 6) / 2)  # 0.959, 0.282
    assert capsys.readouterr().out == (
        f"no near-collisions: NO - positions 0 and 6 are {gap:.3g} apart, no farther than "
        f"the closest neighbours ({neighbours:.3g})\n"
    )
    # with 6 positions the closest non-neighbours are 0 and 5: 2 sin((2 pi - 5) / 2) = 1.197
    assert naive.no_near_collisions(circle, seq_len=6)
    assert "at least 1.2 apart" in capsys.readouterr().out


def test_linear_shift_by_hand(capsys):
    # raw index, 3 positions, offset 1: X = [0, 1, 2], Y = [1, 2, 3]; the best a = 8/5 leaves
    # Y - a X = [1, 0.4, -0.2]: relative residual sqrt(1.2 / 14) = 0.293 (affine, not linear)
    assert not naive.shift_is_linear(naive.index_encoding, seq_len=3, offsets=(1,))
    expected = f"{math.sqrt(1.2 / 14):.3g}"
    assert expected == "0.293"
    assert f"e[t+1] misses by {expected} of the target" in capsys.readouterr().out
    # a (sin, cos) pair is a rotation: exact for every offset, and every sinusoidal width
    assert naive.shift_is_linear(circle)
    assert naive.shift_is_linear(sinusoidal_scheme, offsets=(1, 7, 300))
    capsys.readouterr()
    # sines alone, 1 / (t + 1), the binary code: far from any fixed linear map (0.24 and more)
    assert not naive.shift_is_linear(functools.partial(naive.single_sine_encoding, omega=1.0))
    # sin(t + 1) = cos(1) sin(t) + sin(1) cos(t): the best map keeps cos(1) sin(t) and misses
    # the cosine part, sin(1) = 0.841 of the target's size (cos and sin average out over t)
    assert f"misses by {math.sin(1):.3f} of" in capsys.readouterr().out
    for scheme in (naive.bounded_decreasing_encoding, naive.binary_encoding):
        assert not naive.shift_is_linear(scheme, verbose=False)
    # an all-zero scheme is trivially shifted by any matrix (no division by zero)
    assert naive.shift_is_linear(lambda p: np.zeros((len(p), 2)), verbose=False)


def test_linear_shift_names_the_first_offset_that_fails(capsys):
    # sin(t / 1000) is almost linear over 30 positions, but not exactly
    slow = functools.partial(naive.single_sine_encoding, omega=1e-3)
    assert not naive.shift_is_linear(slow, seq_len=30, offsets=(2, 1))
    assert "e[t+2] misses by" in capsys.readouterr().out
    # the tolerance decides: a huge one accepts the slow sine
    assert naive.shift_is_linear(slow, seq_len=30, offsets=(1,), tol=0.5, verbose=False)


def test_no_near_collisions_on_the_naive_schemes():
    assert naive.no_near_collisions(naive.index_encoding, verbose=False)
    assert naive.no_near_collisions(naive.bounded_decreasing_encoding, verbose=False)
    assert naive.no_near_collisions(sinusoidal_scheme, verbose=False)  # d_model 16, 512 positions
    # the binary code repeats after 256 positions; the fast sine at 3 and 5
    assert not naive.no_near_collisions(naive.binary_encoding, verbose=False)
    fast = functools.partial(naive.single_sine_encoding, omega=2 * math.pi / 16)
    assert not naive.no_near_collisions(fast, seq_len=8, verbose=False)


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: naive.unique_per_position("abc"), TypeError, "encode"),
        (lambda: naive.unique_per_position(naive.index_encoding, seq_len=1), ValueError, "seq_len"),
        (lambda: naive.unique_per_position(naive.index_encoding, tol=0), ValueError, "tol"),
        (lambda: naive.unique_per_position(lambda t: t[:-1]), ValueError, "encode"),
        (
            lambda: naive.consistent_distance(naive.index_encoding, lengths=()),
            ValueError,
            "lengths",
        ),
        (
            lambda: naive.consistent_distance(naive.index_encoding, max_delta=16),
            ValueError,
            "max_delta",
        ),
        (
            lambda: naive.bounded_and_length_independent(naive.index_encoding, (10,)),
            ValueError,
            "lengths",
        ),
        (
            lambda: naive.bounded_and_length_independent(naive.index_encoding, bound=-1.0),
            ValueError,
            "bound",
        ),
        (lambda: naive.deterministic(naive.index_encoding, seq_len=0), ValueError, "seq_len"),
        (lambda: naive.shift_is_linear(naive.index_encoding, offsets=()), TypeError, "offsets"),
        (lambda: naive.shift_is_linear(naive.index_encoding, offsets=(0,)), ValueError, "offsets"),
        (lambda: naive.shift_is_linear(naive.index_encoding, tol=0.0), ValueError, "tol"),
        (lambda: naive.no_near_collisions(naive.index_encoding, seq_len=2), ValueError, "seq_len"),
        (lambda: naive.score_schemes({}), ValueError, "schemes"),
        (lambda: naive.format_score_table({}), ValueError, "scores"),
    ],
)
def test_criteria_bad_arguments(call, error, name):
    with pytest.raises(error, match=name):
        call()


# --- the score table -------------------------------------------------------------------------


def test_score_table():
    helpers.seed_everything(0)  # random_encoding draws from the global generator
    schemes = {
        "raw index": naive.index_encoding,
        "normalised": naive.normalized_index_encoding,
        "random": naive.random_encoding,
        "sinusoidal": sinusoidal_scheme,
    }
    scores = naive.score_schemes(schemes)
    assert list(scores["raw index"].values()) == [True, True, False, True, False, True]
    assert list(scores["normalised"].values()) == [True, False, False, True, False, True]
    assert list(scores["random"].values())[:5] == [True, False, False, False, False]
    assert all(scores["sinusoidal"].values())
    lines = naive.format_score_table(scores).splitlines()
    # names with a space go over two header lines, split near their middle
    assert lines[0].split() == ["consistent", "bounded,", "linear", "no"]
    assert lines[1].split() == [
        "scheme", "unique", "distance", "length-indep.", "deterministic", "shift",
        "near-collisions", "passed",
    ]  # fmt: skip
    assert lines[2].split() == ["raw", "index", "yes", "yes", "no", "yes", "no", "yes", "4/6"]
    assert lines[5].split() == ["sinusoidal", *["yes"] * 6, "6/6"]
    assert max(map(len, lines)) <= 100  # fits a projector


@pytest.mark.parametrize(("x", "passes"), [(1.5, False), (2.0, False), (2.5, True)])
def test_no_near_collisions_flips_at_the_neighbour_distance(x, passes):
    # three points on a line, 0, 4, x: the closest neighbours are 4 and x, 4 - x apart; positions
    # 0 and 2 are x apart: 0.6, 1 and 1.67 times the neighbours' distance
    def scheme(positions):
        return np.array([[0.0], [4.0], [x]])[: len(positions)]

    assert naive.no_near_collisions(scheme, seq_len=3, verbose=False) is passes


@pytest.mark.parametrize(("tol", "passes"), [(0.29, False), (0.30, True)])
def test_linear_shift_flips_at_the_tolerance(tol, passes):
    # the raw index over 3 positions misses offset 1 by sqrt(1.2 / 14) = 0.2928 (hand value above)
    result = naive.shift_is_linear(naive.index_encoding, 3, (1,), tol=tol, verbose=False)
    assert result is passes
