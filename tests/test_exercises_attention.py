"""Tests of the attention exercise checkers: right answers pass, each classic mistake is named."""

import math

import numpy as np
import pytest
import torch

from helpers.attention import causal_mask, padding_mask, scaled_dot_product_attention
from helpers.exercises import attention as ex
from helpers.exercises import check_attention, check_causal_mask, check_padding_mask


def stub(*args):
    raise NotImplementedError  # your code here


def plain_attention(q, k, v, mask):
    """The textbook version a learner writes: no special case for fully masked rows."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(dim=-1)
    return weights @ v, weights


def with_output(buggy_weights):
    """Turn a Mistake's weights-only answer into a learner's (output, weights) function."""

    def fn(q, k, v, mask):
        weights = buggy_weights(q, k, v, mask)
        return weights @ v, weights

    return fn


@pytest.mark.parametrize(
    ("checker", "right"),
    [
        (check_attention, scaled_dot_product_attention),
        (check_attention, plain_attention),
        (check_causal_mask, causal_mask),
        (check_causal_mask, lambda n: torch.from_numpy(np.tril(np.ones((n, n))).astype(bool))),
        (check_padding_mask, padding_mask),
    ],
)
def test_right_answers_pass_and_stubs_are_reported(checker, right, capsys):
    assert checker(right) is True
    assert "hidden cases pass" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("checker", "numpy_mask"),
    [
        (check_causal_mask, lambda n: np.tril(np.ones((n, n))).astype(bool)),
        (check_padding_mask, lambda tokens, pad_id: (tokens != pad_id)[:, None, None, :].numpy()),
    ],
)
def test_a_numpy_mask_fails_naming_the_tensor_masked_fill_needs(checker, numpy_mask, capsys):
    # The right values in a NumPy array: scores.masked_fill(~mask, -inf) raises TypeError on it.
    assert checker(numpy_mask) is False
    out = capsys.readouterr().out
    assert "returned a numpy.ndarray, expected a torch tensor" in out and "masked_fill" in out
    assert checker(stub) is False
    assert "not yet implemented" in capsys.readouterr().out


def test_attention_in_float32_or_numpy_passes(capsys):
    def float32_numpy(q, k, v, mask):
        out, weights = plain_attention(q.float(), k.float(), v.float(), mask)
        return out.numpy(), weights.numpy()

    # float32 rounding stays well inside the checker's tolerance
    assert check_attention(float32_numpy) is True
    capsys.readouterr()


@pytest.mark.parametrize(
    ("checker", "buggy", "hint"),
    [
        (check_attention, with_output(ex._no_scale), "not divided by sqrt(d_k)"),
        (check_attention, with_output(ex._divided_by_d_k), "you divide by d_k"),
        (check_attention, with_output(ex._wrong_polarity), "mask polarity is flipped"),
        (check_attention, with_output(ex._softmax_over_queries), "wrong axis"),
        (check_attention, with_output(ex._mask_ignored), "the mask is ignored"),
        (check_attention, with_output(ex._mask_after_softmax), "after the softmax"),
        (check_causal_mask, ex._upper_triangular, "upper triangular"),
        (check_causal_mask, ex._strict_lower, "diagonal is False"),
        (check_causal_mask, ex._ignore_polarity, "True where attention is forbidden"),
        (check_padding_mask, ex._padding_flipped, "polarity is flipped"),
        (check_padding_mask, ex._pad_id_zero, "compare with the pad_id"),
    ],
)
def test_each_classic_mistake_fails_with_its_hint(checker, buggy, hint, capsys):
    assert checker(buggy) is False
    out = capsys.readouterr().out
    assert "FAILED" in out
    assert hint in out


def test_attention_mistakes_written_the_way_a_learner_would(capsys):
    def no_scale(q, k, v, mask):
        scores = q @ k.transpose(-2, -1)  # forgot / sqrt(d_k)
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-1)
        return weights @ v, weights

    def flipped(q, k, v, mask):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(mask, -1e9)  # True treated as "hide"
        weights = torch.softmax(scores, dim=-1)
        return weights @ v, weights

    def wrong_axis(q, k, v, mask):
        scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores.masked_fill(~mask, float("-inf"))
        weights = torch.softmax(scores, dim=-2)
        return weights @ v, weights

    for fn, hint in ((no_scale, "sqrt(d_k)"), (flipped, "polarity"), (wrong_axis, "wrong axis")):
        assert check_attention(fn) is False
        assert hint in capsys.readouterr().out


def test_attention_result_must_be_a_consistent_pair(capsys):
    assert check_attention(lambda q, k, v, mask: plain_attention(q, k, v, mask)[0]) is False
    assert "return a pair (output, weights)" in capsys.readouterr().out

    def output_not_from_weights(q, k, v, mask):
        out, weights = plain_attention(q, k, v, mask)
        return out + 1.0, weights

    assert check_attention(output_not_from_weights) is False
    assert "output must equal weights @ v" in capsys.readouterr().out

    def output_wrong_shape(q, k, v, mask):
        out, weights = plain_attention(q, k, v, mask)
        return out[..., :1], weights

    assert check_attention(output_wrong_shape) is False
    assert "output must have shape" in capsys.readouterr().out


def test_padding_mask_wrong_shape_is_reported(capsys):
    assert check_padding_mask(lambda tokens, pad_id: tokens != pad_id) is False
    assert "expected shape (2, 1, 1, 5), got (2, 5)" in capsys.readouterr().out


@pytest.mark.parametrize("checker", [check_attention, check_causal_mask, check_padding_mask])
def test_checkers_reject_a_non_function(checker):
    with pytest.raises(TypeError, match="fn must be a function, got NoneType"):
        checker(None)


@pytest.mark.parametrize(
    ("checker", "float_mask"),
    [
        (check_causal_mask, lambda n: torch.ones(n, n).tril()),
        (check_padding_mask, lambda tokens, pad_id: (tokens != pad_id)[:, None, None, :].float()),
    ],
)
def test_a_float_mask_is_rejected_with_a_hint(checker, float_mask, capsys):
    # A 0/1 float mask has the right values but is added to the scores by PyTorch: not a mask.
    assert checker(float_mask) is False
    out = capsys.readouterr().out
    assert "expected a boolean mask" in out and "ADDED to the scores" in out
