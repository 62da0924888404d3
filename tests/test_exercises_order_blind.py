"""Tests of lesson 01's checker: right answers pass, each classic mistake is named."""

import math

import pytest
import torch

from helpers.exercises import check_causal_self_attention
from helpers.exercises import order_blind as ex


def lesson_answer(x, W_q, W_k, W_v):  # noqa: N803
    """The lesson's self_attention with the mask the exercise gives."""
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.T / math.sqrt(k.shape[-1])
    scores = scores.masked_fill(~torch.ones(len(x), len(x), dtype=torch.bool).tril(), -math.inf)
    weights = scores.softmax(dim=-1)
    return weights @ v, weights


def stub(*args):
    raise NotImplementedError


def with_output(buggy_weights):
    def fn(x, W_q, W_k, W_v):  # noqa: N803
        weights = buggy_weights(x, W_q, W_k, W_v)
        return weights @ (x @ W_v), weights

    return fn


def test_right_answer_in_float32_passes_and_stub_is_reported(capsys):
    assert check_causal_self_attention(lesson_answer) is True
    assert "all 4 hidden cases pass" in capsys.readouterr().out
    as_float32 = lambda x, *w: lesson_answer(x.float(), *(m.float() for m in w))  # noqa: E731
    assert check_causal_self_attention(as_float32) is True
    assert check_causal_self_attention(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


@pytest.mark.parametrize("mistake", ex._MISTAKES, ids=lambda m: m.answer.__name__)
def test_each_registered_mistake_is_named(mistake, capsys):
    assert check_causal_self_attention(with_output(mistake.answer)) is False
    out = capsys.readouterr().out
    assert "Hint: " + mistake.hint[:60] in out, out


@pytest.mark.parametrize(("answer", "hint"), ex._NAN_MISTAKES, ids=["strict_past", "flipped"])
def test_nan_rows_are_traced_to_their_mask(answer, hint, capsys):
    assert check_causal_self_attention(with_output(answer)) is False
    out = capsys.readouterr().out
    assert "your weights hold NaN" in out and hint[:60] in out, out


def test_nan_rows_of_another_kind_are_only_located(capsys):
    def two_nan_rows(x, W_q, W_k, W_v):  # noqa: N803
        output, weights = lesson_answer(x, W_q, W_k, W_v)
        weights = weights.clone()
        weights[:2] = math.nan
        return output, weights

    assert check_causal_self_attention(two_nan_rows) is False
    out = capsys.readouterr().out
    assert "NaN in rows [0, 1]" in out and "flipped" not in out and "diagonal" not in out, out


def test_the_expected_weights_are_causal_and_sum_to_one():
    for case in ex._cases():
        weights = case.expected
        n = len(weights)
        assert torch.equal(weights.triu(1), torch.zeros(n, n, dtype=weights.dtype))
        torch.testing.assert_close(weights.sum(-1), torch.ones(n, dtype=weights.dtype))
        assert bool((weights.tril() > 0).sum() == n * (n + 1) // 2)
    assert [len(c.expected) for c in ex._cases()] == [2, 4, 6, 1]
