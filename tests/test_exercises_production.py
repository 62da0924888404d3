"""Tests of the notebook-17 checkers: right answers (written several ways) pass, and wrong
answers written as a learner would write them fail with the hint of their mistake."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from helpers.exercises import (
    check_dynamic_ntk_frequencies,
    check_llama3_frequencies,
    check_window_positions,
)
from helpers.exercises import production as ex


def stub(*args):
    raise NotImplementedError


@pytest.mark.parametrize(
    ("checker", "right"),
    [
        (check_llama3_frequencies, ex._llama3_frequencies),
        (check_dynamic_ntk_frequencies, ex._dynamic_frequencies),
        (check_window_positions, ex._window_positions),
    ],
)
def test_right_answers_pass_and_stubs_are_reported(checker, right, capsys):
    assert checker(right) is True
    assert "hidden cases pass" in capsys.readouterr().out
    assert checker(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


# --- Llama 3's rule, as a learner writes it: a loop over pairs --------------------------------


def llama3_loop(swap_bounds=False, divide_all=False, reverse_blend=False, no_blend=False):
    def mine(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
        high_wavelen = original_max_len / high_freq_factor  # below: keep
        low_wavelen = original_max_len / low_freq_factor  # above: divide
        if swap_bounds:
            high_wavelen, low_wavelen = low_wavelen, high_wavelen
        out = []
        for k in range(d // 2):
            omega = base ** (-2 * k / d)
            wavelen = 2 * math.pi / omega
            if divide_all:
                out.append(omega / factor)
            elif no_blend:
                out.append(omega / factor if wavelen > low_wavelen else omega)
            elif wavelen < high_wavelen:
                out.append(omega)
            elif wavelen > low_wavelen:
                out.append(omega / factor)
            else:
                smooth = (original_max_len / wavelen - low_freq_factor) / (
                    high_freq_factor - low_freq_factor
                )
                if reverse_blend:
                    smooth = 1 - smooth
                out.append((1 - smooth) * omega / factor + smooth * omega)
        return out

    return mine


def test_a_loop_written_llama3_passes(capsys):
    assert check_llama3_frequencies(llama3_loop()) is True


@pytest.mark.parametrize(
    ("options", "words"),
    [
        # the same frequencies for every low < high (the band between the swapped bounds is
        # empty): the hint names what the answer does, and both ways to get there
        ({"swap_bounds": True}, "no pair is blended"),
        ({"no_blend": True}, "no pair is blended"),
        ({"divide_all": True}, "position interpolation"),
        ({"reverse_blend": True}, "blend is reversed"),
    ],
)
def test_llama3_mistakes_as_learners_write_them_get_their_hint(options, words, capsys):
    assert check_llama3_frequencies(llama3_loop(**options)) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and "Hint:" in out and words in out


# --- dynamic NTK ----------------------------------------------------------------------------------


def dynamic_numpy(length_used="current", floor=True, static=False):
    def mine(d, factor, base, original_max_len, seq_len):
        length = seq_len if length_used == "current" else original_max_len
        if floor:
            length = max(length, original_max_len)
        stretch = factor if static else factor * length / original_max_len - (factor - 1)
        new_base = base * stretch ** (d / (d - 2))
        return 1.0 / new_base ** (np.arange(0, d, 2) / d)

    return mine


def test_a_numpy_dynamic_ntk_passes(capsys):
    assert check_dynamic_ntk_frequencies(dynamic_numpy()) is True


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"length_used": "original"}, "computed from the original length"),
        ({"static": True}, "static NTK"),
        ({"floor": False}, "max(seq_len, L)"),
    ],
)
def test_dynamic_ntk_mistakes_as_learners_write_them_get_their_hint(options, words, capsys):
    assert check_dynamic_ntk_frequencies(dynamic_numpy(**options)) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and "Hint:" in out and words in out


# --- the windowed cache's positions ----------------------------------------------------------


def window_rows(text_positions=False, no_sinks=False, short=False):
    def mine(seen, sinks, window):
        if no_sinks:
            kept = list(range(max(0, seen - sinks - window), seen))
        else:
            start = seen - window + (1 if short else 0)
            recent = [t for t in range(max(start, 0), seen) if t >= sinks]
            kept = [t for t in range(sinks) if t < seen] + recent
        return [[t, t if text_positions else slot] for slot, t in enumerate(kept)]

    return mine


def test_window_rows_written_as_lists_pass(capsys):
    assert check_window_positions(window_rows()) is True


@pytest.mark.parametrize(
    ("options", "words"),
    [
        ({"text_positions": True}, "rotated at their text positions"),
        ({"no_sinks": True}, "plain sliding window"),
        ({"short": True}, "one recent token too few"),
    ],
)
def test_window_mistakes_as_learners_write_them_get_their_hint(options, words, capsys):
    assert check_window_positions(window_rows(**options)) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and "Hint:" in out and words in out


def test_window_reference_hand_values():
    # 13 tokens, 2 sinks, window 8: tokens 0, 1 and 5 .. 12, at slots 0 .. 9
    rows = ex._window_positions(13, 2, 8).tolist()
    assert rows == [[0, 0], [1, 1]] + [[t, t - 3] for t in range(5, 13)]
    assert ex._window_positions(5, 4, 8).tolist() == [[t, t] for t in range(5)]


def test_the_references_are_the_tested_helpers():
    # Llama 3.1's settings by hand: the fastest pair kept, the slowest divided by 8
    omega = ex._llama3_frequencies(128, 8.0, 500000.0, 8192, 1.0, 4.0)
    assert omega[0] == 1.0 and omega[-1] == pytest.approx(500000.0 ** (-126 / 128) / 8)
    # dynamic NTK at twice the original length with factor 2: base * 3 ** (d / (d - 2))
    omega = ex._dynamic_frequencies(4, 2.0, 100.0, 50, 100)
    torch.testing.assert_close(omega, torch.tensor([1.0, 1 / 30], dtype=torch.float64))


def test_unknown_wrong_answers_get_a_specific_difference(capsys):
    assert check_window_positions(lambda seen, sinks, window: [[0, 1]] * 3) is False
    assert "fewer cached tokens than expected" in capsys.readouterr().out
    assert check_llama3_frequencies(lambda d, *rest: np.ones(d // 2) * 0.5) is False
    assert "divide by factor pairs 0, give other values to pairs 2-7" in capsys.readouterr().out
