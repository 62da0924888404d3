"""Tests of the encoding exercise checkers: right answers pass, each classic mistake is named."""

import math

import numpy as np
import pytest
import torch

from helpers.encodings import binary_encoding, frequencies, offset_matrix, sinusoidal_encoding
from helpers.exercises import (
    check_binary_encoding,
    check_offset_matrix,
    check_sinusoidal,
    check_token_and_position,
    check_wavelengths,
)
from helpers.exercises import encodings as ex


def stub(*args):
    raise NotImplementedError


@pytest.mark.parametrize(
    ("checker", "right"),
    [
        (check_sinusoidal, sinusoidal_encoding),
        (check_binary_encoding, binary_encoding),
        (check_wavelengths, lambda d, b: 2 * math.pi / frequencies(d, b)),
        (check_offset_matrix, offset_matrix),
        (
            check_token_and_position,
            lambda tok, w, pe: w[tok] * math.sqrt(w.shape[1]) + pe[: tok.shape[1]],
        ),
    ],
)
def test_right_answers_pass_and_stubs_are_reported(checker, right, capsys):
    assert checker(right) is True
    assert "hidden cases pass" in capsys.readouterr().out
    assert checker(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


def test_answers_in_other_forms_pass(capsys):
    # torch tensors, float32 and booleans are accepted where the values are right
    assert check_binary_encoding(lambda p, n: (np.asarray(p)[:, None] >> np.arange(n)) & 1)
    assert check_binary_encoding(lambda p, n: binary_encoding(p, n).astype(bool))
    assert check_wavelengths(
        lambda d, b: torch.tensor(2 * math.pi * b ** (np.arange(0, d, 2) / d), dtype=torch.float32)
    )
    assert check_offset_matrix(lambda phi, d: torch.from_numpy(offset_matrix(phi, d)))
    capsys.readouterr()


@pytest.mark.parametrize(
    ("checker", "buggy", "hint"),
    [
        (check_sinusoidal, ex._full_index_exponent, "pair index k = i // 2"),
        (check_sinusoidal, ex._counted_from_one, "positions start at 1"),
        (check_sinusoidal, ex._row_zero_zeroed, "row 0 is all zeros"),
        (check_sinusoidal, ex._halves_concatenated, "the paper interleaves them"),
        (check_sinusoidal, ex._sin_cos_swapped, "sin and cos are swapped"),
        (check_binary_encoding, ex._binary_msb_first, "most significant bit"),
        (check_binary_encoding, ex._binary_from_one, "you encoded t + 1"),
        (check_binary_encoding, ex._binary_plus_minus, "not -1 and +1"),
        (check_wavelengths, ex._wavelengths_without_two_pi, "you returned 1 / omega_k"),
        (check_wavelengths, ex._frequencies_instead, "you returned the frequencies"),
        (check_wavelengths, ex._wavelengths_exponent_k, "not k / d_model"),
        (check_wavelengths, ex._wavelengths_dimension_index, "uses the dimension index"),
        (check_offset_matrix, ex._offset_transposed, "transposed"),
        (check_offset_matrix, ex._offset_full_index, "dimension index 2k"),
        (check_offset_matrix, ex._offset_halves, "[all sines, all cosines]"),
        (check_token_and_position, ex._not_scaled, "not scaled"),
        (check_token_and_position, ex._sum_scaled, "you scaled the sum"),
        (check_token_and_position, ex._divided, "you divided"),
    ],
)
def test_each_classic_mistake_fails_with_its_hint(checker, buggy, hint, capsys):
    assert checker(buggy) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and "Hint: " in out and hint in out


def test_the_mistakes_really_are_wrong():
    # guards the hints: each buggy version differs from the right answer on some case
    assert not np.allclose(ex._offset_full_index(3, 8), offset_matrix(3, 8))
    assert not np.allclose(ex._offset_halves(3, 8), offset_matrix(3, 8))
    assert not np.allclose(ex._wavelengths_exponent_k(8, 1e4), 2 * np.pi / frequencies(8))


def test_no_relation_found_shows_the_smallest_failing_case(capsys):
    assert check_offset_matrix(lambda phi, d: np.eye(d)) is False
    out = capsys.readouterr().out
    assert "none of your pairs turns" in out
    assert check_offset_matrix(lambda phi, d: np.ones((d, d))) is False
    out = capsys.readouterr().out
    assert "no simple relation" in out and "smallest failing case, offset=1, d_model=2" in out
    assert "expected [[ 0.5403  0.8415]" in out and "got      [[1. 1.]" in out
    assert check_token_and_position(lambda tok, w, pe: w[tok] + pe) is False
    assert "your function raised RuntimeError" in capsys.readouterr().out
    assert check_binary_encoding(lambda p, n: np.zeros((len(p), n + 1))) is False
    assert "expected shape" in capsys.readouterr().out


@pytest.mark.parametrize(
    "checker",
    [check_binary_encoding, check_wavelengths, check_offset_matrix, check_token_and_position],
)
def test_checkers_reject_a_non_function(checker):
    with pytest.raises(TypeError, match="fn"):
        checker("not a function")
