"""Notebook 01: self-attention with a causal mask, written as the lesson's ``self_attention``."""

from __future__ import annotations

import math

import numpy as np
import torch

from . import right, variant, wrong

# --- check_causal_self_attention(x, W_q, W_k, W_v) -> (output, weights) ----------------------


def causal_learner(
    x,
    W_q,  # noqa: N803
    W_k,  # noqa: N803
    W_v,  # noqa: N803
    *,
    diagonal=0,
    upper=False,
    fill=float("-inf"),
    scale=None,
    dim=-1,
    after=False,
    swap=False,
    keep_masked=False,
):
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    d_k = k.shape[-1]
    scores = q @ k.T / (math.sqrt(d_k) if scale is None else scale(d_k, len(x)))
    ones = torch.ones(len(x), len(x), dtype=torch.bool)
    allowed = ones.triu(diagonal) if upper else ones.tril(diagonal)
    if keep_masked:  # masked_fill where the mask is True: the polarity of nn.MultiheadAttention
        allowed = ~allowed
    if after:
        weights = scores.softmax(dim=dim) * allowed
    else:
        weights = scores.masked_fill(~allowed, fill).softmax(dim=dim)
    out = weights @ v
    return (weights, out) if swap else (out, weights)


for name, knobs, words in [
    ("causal_future_triu", {"upper": True}, r"upper triangular"),
    ("causal_tril_one", {"diagonal": 1}, r"also sees key i \+ 1"),
    ("causal_fill_zero", {"fill": 0.0}, r"set to 0, not -inf"),
    ("causal_fill_minus_one", {"fill": -1.0}, r"query 1 matches, query 0 differs"),
    ("causal_mask_after_softmax", {"after": True}, r"after the softmax"),
    ("causal_no_scale", {"scale": lambda d, n: 1.0}, r"not divided by sqrt\(d_k\)"),
    ("causal_scale_by_d", {"scale": lambda d, n: d}, r"divide the scores by d_k"),
    ("causal_softmax_dim0", {"dim": 0}, r"over the queries"),
    (
        "causal_no_diagonal",
        {"diagonal": -1},
        r"NaN in row 0 and otherwise those of a mask that hides the diagonal",
    ),
    ("causal_flipped_polarity", {"keep_masked": True}, r"polarity is flipped"),
    ("causal_pair_swapped", {"swap": True}, r"output must have shape"),
]:
    wrong("check_causal_self_attention", words)(variant(causal_learner, name, **knobs))


@wrong("check_causal_self_attention", r"without a mask")
def causal_forgot_to_use_the_mask(x, W_q, W_k, W_v):  # noqa: N803
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    scores = q @ k.T / math.sqrt(k.shape[-1])
    scores.masked_fill(~torch.ones(len(x), len(x), dtype=torch.bool).tril(), float("-inf"))
    weights = scores.softmax(dim=-1)  # masked_fill (no underscore) returned a new tensor
    return weights @ v, weights


@wrong("check_causal_self_attention", r"output must equal weights @ \(x @ W_v\)")
def causal_values_without_w_v(x, W_q, W_k, W_v):  # noqa: N803
    q, k = x @ W_q, x @ W_k
    scores = (q @ k.T / math.sqrt(k.shape[-1])).masked_fill(
        ~torch.ones(len(x), len(x), dtype=torch.bool).tril(), float("-inf")
    )
    weights = scores.softmax(dim=-1)
    return weights @ x, weights  # forgot the value projection


@wrong("check_causal_self_attention", r"transposed")
def causal_weights_transposed(x, W_q, W_k, W_v):  # noqa: N803
    out, weights = causal_learner(x, W_q, W_k, W_v)
    return weights.T @ (x @ W_v), weights.T  # keys as rows


@right("check_causal_self_attention")
def causal_large_negative(x, W_q, W_k, W_v):  # noqa: N803
    return causal_learner(x, W_q, W_k, W_v, fill=-1e9)


@right("check_causal_self_attention")
def causal_renormalised_after_softmax(x, W_q, W_k, W_v):  # noqa: N803
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    weights = torch.softmax(q @ k.T / math.sqrt(k.shape[-1]), dim=-1).tril()
    weights = weights / weights.sum(dim=-1, keepdim=True)  # the same as masking before
    return weights @ v, weights


@right("check_causal_self_attention")
def causal_row_by_row_numpy(x, W_q, W_k, W_v):  # noqa: N803
    q, k, v = (np.asarray(x @ w) for w in (W_q, W_k, W_v))
    weights = np.zeros((len(q), len(q)))
    for i in range(len(q)):
        s = q[i] @ k[: i + 1].T / np.sqrt(k.shape[1])  # only the keys up to i
        e = np.exp(s - s.max())
        weights[i, : i + 1] = e / e.sum()
    return weights @ v, weights


@right("check_causal_self_attention")
def causal_sdpa_is_causal(x, W_q, W_k, W_v):  # noqa: N803
    q, k, v = x @ W_q, x @ W_k, x @ W_v
    out = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    bias = torch.zeros(len(x), len(x), dtype=x.dtype).masked_fill(
        torch.ones(len(x), len(x), dtype=torch.bool).triu(1), float("-inf")
    )
    weights = torch.softmax(q @ k.T / k.shape[-1] ** 0.5 + bias, dim=-1)
    return out, weights
