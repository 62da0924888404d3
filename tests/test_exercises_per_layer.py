"""Tests of the notebook-18 checkers: right answers (written several ways) pass, and wrong
answers written as a learner would write them fail with the hint of their mistake."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from helpers.exercises import (
    check_llama4_temperature,
    check_proportional_frequencies,
    check_sink_weights,
)
from helpers.exercises import per_layer as ex


def stub(*args):
    raise NotImplementedError


@pytest.mark.parametrize(
    ("checker", "right"),
    [
        (check_proportional_frequencies, ex._proportional),
        (check_sink_weights, ex._sink_weights),
        (check_llama4_temperature, ex._temperature),
    ],
)
def test_right_answers_pass_and_stubs_are_reported(checker, right, capsys):
    assert checker(right) is True
    assert "all" in capsys.readouterr().out
    assert checker(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


# --- proportional, as a learner writes it: a loop over pairs, numpy ---------------------------


def proportional_loop(mistake=None):
    def mine(head_dim, p, base):
        rotated = int(p * head_dim // 2)
        if mistake == "round_up":
            rotated = math.ceil(p * head_dim / 2)
        out = []
        for k in range(head_dim // 2):
            if mistake == "partial":
                dim = int(head_dim * p)
                out.append(base ** (-2 * k / dim) if k < dim // 2 else 0.0)
            elif mistake == "slowest":
                out.append(base ** (-2 * k / head_dim) if k >= head_dim // 2 - rotated else 0.0)
            else:
                out.append(base ** (-2 * k / head_dim) if k < rotated else 0.0)
        return np.array(out)

    return mine


def test_proportional_right_as_a_loop_passes(capsys):
    assert check_proportional_frequencies(proportional_loop()) is True


@pytest.mark.parametrize(
    ("mistake", "hint"),
    [
        ("partial", "other meaning"),
        ("slowest", "keeps the fastest pairs"),
        ("round_up", "one pair too many"),
    ],
)
def test_proportional_mistakes_get_their_hint(mistake, hint, capsys):
    assert check_proportional_frequencies(proportional_loop(mistake)) is False
    out = capsys.readouterr().out
    assert hint in out and "FAILED" in out


def test_proportional_plain_partial_gets_its_hint(capsys):
    def mine(head_dim, p, base):
        dim = int(head_dim * p)
        return 1.0 / base ** (torch.arange(0, dim, 2, dtype=torch.float64) / dim)

    assert check_proportional_frequencies(mine) is False
    out = capsys.readouterr().out
    assert "plain partial_rotary_factor" in out and "expected shape (256,)" in out


# --- sink weights -----------------------------------------------------------------------------


def sink_by_denominator(scores, sinks):
    e = torch.exp(scores)
    return e / (e.sum(-1, keepdim=True) + torch.exp(sinks)[:, None, None])


def test_sink_written_as_the_denominator_passes(capsys):
    assert check_sink_weights(sink_by_denominator) is True


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (ex._sink_dropped_before, "your rows sum to 1"),
        (
            lambda s, k: (
                torch.softmax(torch.cat((s, k[:, None, None].expand(*s.shape[:-1], 1)), -1), -1)[
                    ..., :-1
                ]
                / torch.softmax(torch.cat((s, k[:, None, None].expand(*s.shape[:-1], 1)), -1), -1)[
                    ..., :-1
                ].sum(-1, keepdim=True)
            ),
            "your rows sum to 1",
        ),
        (ex._sink_column_kept, "L_k + 1 columns"),
        (ex._sink_not_exponentiated, "s_h itself"),
        (ex._sink_at_the_front_dropped_last, "dropped a key"),
    ],
)
def test_sink_mistakes_get_their_hint(wrong, hint, capsys):
    assert check_sink_weights(wrong) is False
    out = capsys.readouterr().out
    assert hint in out


def test_sink_mistakes_are_distinct_on_every_case():
    mistakes = [
        ex._sink_dropped_before,
        ex._sink_not_exponentiated,
        ex._sink_at_the_front_dropped_last,
    ]
    for scores, sinks in ex._SINK_ARGS:
        right = ex._sink_weights(scores, sinks)
        answers = [m(scores, sinks) for m in mistakes]
        for a in answers:
            assert not torch.allclose(a, right, rtol=1e-6, atol=1e-9)
        for i in range(len(answers)):
            for j in range(i + 1, len(answers)):
                assert not torch.allclose(answers[i], answers[j], rtol=1e-6, atol=1e-9)


# --- Llama 4's temperature --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        (ex._temperature_without_plus_one, "one position late"),
        (ex._temperature_log_not_log1p, "log1p"),
        (ex._temperature_not_floored, "grows smoothly"),
    ],
)
def test_temperature_mistakes_get_their_hint(wrong, hint, capsys):
    assert check_llama4_temperature(wrong) is False
    assert hint in capsys.readouterr().out


def test_temperature_as_a_python_loop_passes(capsys):
    def mine(positions, floor_scale, attn_scale):
        return [
            math.log1p(math.floor((int(t) + 1) / floor_scale)) * attn_scale + 1 for t in positions
        ]

    assert check_llama4_temperature(mine) is True


def test_checkers_reject_what_is_not_a_function():
    for checker in (check_proportional_frequencies, check_sink_weights, check_llama4_temperature):
        with pytest.raises(TypeError):
            checker(None)
