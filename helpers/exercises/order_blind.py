"""Checker for the exercise of notebook 01 (attention is order-blind).

- ``check_causal_self_attention(fn)``: ``fn(x, W_q, W_k, W_v)`` returns ``(output, weights)``,
  notebook 01's ``self_attention`` with a causal mask: query ``i`` sees keys ``j <= i``.

The hidden cases start with a single token (nothing to mask) and never leave a query without a
key, so the learner's plain ``masked_fill(-inf)`` + softmax passes; an answer that leaves one
query nothing to see (NaN weights) is told which query it is.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from ..attention import causal_mask
from ._core import Case, CaseFailedError, Mistake, run_checker
from ._diagnose import Diagnosis
from .attention import _as_array  # the same argument check as lesson 06's checker

__all__ = ["check_causal_self_attention"]


def _scores(x, W_q, W_k, scale: float | None = None) -> torch.Tensor:  # noqa: N803
    """``q @ k^T`` divided by ``sqrt(d_k)`` (or multiplied by ``scale``): (seq_len, seq_len)."""
    q, k = x @ W_q, x @ W_k
    return q @ k.T * (1.0 / math.sqrt(k.shape[-1]) if scale is None else scale)


def _causal_weights(x, W_q, W_k, W_v) -> torch.Tensor:  # noqa: N803
    """The expected weights: softmax over the keys of the scores, keys after the query hidden."""
    scores = _scores(x, W_q, W_k)
    return scores.masked_fill(~causal_mask(len(x)), float("-inf")).softmax(dim=-1)


def _cases() -> list[Case]:
    generator = torch.Generator().manual_seed(1)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    # one token last: there, nothing is masked and several mistakes coincide
    sizes = [(2, 4, "2 tokens, d_model=4"), (4, 8, "4 tokens, d_model=8")]
    sizes += [(6, 6, "6 tokens, d_model=6"), (1, 4, "one token")]
    cases = []
    for seq_len, d_model, label in sizes:
        weights = [randn(d_model, d_model) / math.sqrt(d_model) for _ in range(3)]
        args = (randn(seq_len, d_model), *weights)
        cases.append(Case(args, _causal_weights(*args), label))
    return cases


# ------------------------------------------------------------------------------ the mistakes


def _no_mask(x, W_q, W_k, W_v):  # noqa: N803
    return _scores(x, W_q, W_k).softmax(dim=-1)


def _future_mask(x, W_q, W_k, W_v):  # noqa: N803
    keep = causal_mask(len(x)).T  # query i sees keys j >= i
    return _scores(x, W_q, W_k).masked_fill(~keep, float("-inf")).softmax(dim=-1)


def _one_ahead(x, W_q, W_k, W_v):  # noqa: N803
    keep = torch.ones(len(x), len(x), dtype=torch.bool).tril(diagonal=1)  # sees key i + 1 too
    return _scores(x, W_q, W_k).masked_fill(~keep, float("-inf")).softmax(dim=-1)


def _filled_with_zero(x, W_q, W_k, W_v):  # noqa: N803
    return _scores(x, W_q, W_k).masked_fill(~causal_mask(len(x)), 0.0).softmax(dim=-1)


def _mask_after_softmax(x, W_q, W_k, W_v):  # noqa: N803
    return _scores(x, W_q, W_k).softmax(dim=-1) * causal_mask(len(x))


def _divided_by_d_k(x, W_q, W_k, W_v):  # noqa: N803
    scores = _scores(x, W_q, W_k, scale=1.0 / W_k.shape[-1])
    return scores.masked_fill(~causal_mask(len(x)), float("-inf")).softmax(dim=-1)


def _strict_past(x, W_q, W_k, W_v):  # noqa: N803
    keep = torch.ones(len(x), len(x), dtype=torch.bool).tril(diagonal=-1)  # j < i: row 0 NaN
    return _scores(x, W_q, W_k).masked_fill(~keep, float("-inf")).softmax(dim=-1)


def _flipped(x, W_q, W_k, W_v):  # noqa: N803
    keep = ~causal_mask(len(x))  # j > i: the last row NaN
    return _scores(x, W_q, W_k).masked_fill(~keep, float("-inf")).softmax(dim=-1)


def _no_scale(x, W_q, W_k, W_v):  # noqa: N803
    scores = _scores(x, W_q, W_k, scale=1.0)
    return scores.masked_fill(~causal_mask(len(x)), float("-inf")).softmax(dim=-1)


def _softmax_over_queries(x, W_q, W_k, W_v):  # noqa: N803
    scores = _scores(x, W_q, W_k)
    return scores.masked_fill(~causal_mask(len(x)), float("-inf")).softmax(dim=0)


_MISTAKES = [
    Mistake(
        _no_mask,
        "your weights are those of the lesson's self_attention without a mask: every query "
        "still gives weight to the keys after it. Fill the scores above the diagonal with -inf "
        "before the softmax.",
    ),
    Mistake(
        _future_mask,
        "your mask is upper triangular, so query i sees the keys j >= i (the future) and not "
        "the past: rows are queries, columns keys, and query i may see keys j <= i (tril).",
    ),
    Mistake(
        _one_ahead,
        "query i also sees key i + 1, one token ahead: the mask keeps j <= i + 1 (tril with "
        "diagonal=1, or j < i + 2); keep j <= i.",
    ),
    Mistake(
        _filled_with_zero,
        "the hidden scores are set to 0, not -inf (masked_fill with 0, or scores times the "
        "mask): exp(0) = 1, so the keys after each query keep some weight.",
    ),
    Mistake(
        _mask_after_softmax,
        "the mask is applied after the softmax (weights times the mask), so the rows no longer "
        "sum to 1: fill the scores with -inf before the softmax instead.",
    ),
    Mistake(
        _no_scale,
        "the scores are not divided by sqrt(d_k): use q @ k^T / sqrt(d_k), as self_attention "
        "does, before masking.",
    ),
    Mistake(_divided_by_d_k, "you divide the scores by d_k; divide by sqrt(d_k)."),
    Mistake(
        _softmax_over_queries,
        "the softmax runs over the queries (dim=0): normalise over the keys (dim=-1), so that "
        "each query's weights sum to 1.",
    ),
]


# ------------------------------------------------------------------------------ the checker


_NAN_MISTAKES = [
    (
        _strict_past,
        "your weights are NaN in row 0 and otherwise those of a mask that hides the diagonal: "
        "query 0 has no key left (softmax of only -inf is 0/0), and every query misses itself. "
        "Query i may see keys j <= i, its own included (tril, not tril(diagonal=-1)).",
    ),
    (
        _flipped,
        "your weights are NaN in the last row and otherwise those of a flipped mask: each query "
        "sees only the keys after it (j > i), and the last query none. The polarity is flipped: "
        "fill the scores where the causal mask is False (masked_fill(~mask, -inf)).",
    ),
]


def _nan_rows_hint(weights: torch.Tensor, args: tuple) -> str:
    """What NaN rows say: a known mistake that gives them, else which queries see no key."""
    nan_rows = torch.isnan(weights).any(dim=-1)
    for answer, hint in _NAN_MISTAKES:
        other = answer(*args)
        same_rows = torch.equal(torch.isnan(other).any(dim=-1), nan_rows)
        if same_rows and torch.allclose(weights[~nan_rows], other[~nan_rows], atol=1e-5):
            return hint
    rows = [int(i) for i in torch.nonzero(nan_rows).flatten()]
    return (
        f"your weights are NaN in rows {rows}: those queries have every key hidden, so their "
        "softmax is 0/0 (exp(-inf) / sum of exp(-inf))."
    )


def _weights_of(result: object, args: tuple) -> torch.Tensor:
    """The weights of ``(output, weights)``, once output == weights @ (x @ W_v)."""
    x, _, _, W_v = args  # noqa: N806
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise CaseFailedError(
            f"returned {type(result).__name__}: return a pair (output, weights), like the "
            "lesson's self_attention"
        )
    output, weights = _as_array(result[0], "output"), _as_array(result[1], "weights")
    seq_len, d_model = x.shape
    if tuple(output.shape) != (seq_len, d_model):
        raise CaseFailedError(
            f"output must have shape (seq_len, d_model) = {(seq_len, d_model)}, got "
            f"{tuple(output.shape)}"
        )
    if tuple(weights.shape) == (seq_len, seq_len) and torch.isnan(weights).any():
        raise CaseFailedError("your weights hold NaN", hint=_nan_rows_hint(weights, args))
    if tuple(weights.shape) == (seq_len, seq_len) and not torch.allclose(
        output, weights @ (x @ W_v), rtol=1e-4, atol=1e-5
    ):
        raise CaseFailedError("output must equal weights @ (x @ W_v), the weighted values")
    return weights


def _regions(args: tuple, shape: tuple) -> list[tuple[str, np.ndarray]]:
    keep = np.broadcast_to(causal_mask(len(args[0])).numpy(), shape)
    return [("on and below the diagonal (keys j <= i)", keep), ("above it (the future)", ~keep)]


def check_causal_self_attention(fn: Callable) -> bool:
    """Check ``fn(x, W_q, W_k, W_v) -> (output, weights)``: self-attention with a causal mask.

    ``x`` is a float64 tensor ``(seq_len, d_model)`` and each ``W`` is ``(d_model, d_model)``;
    ``weights[i, j] = softmax_j(q_i . k_j / sqrt(d_k))`` over the keys ``j <= i`` (0 for
    ``j > i``) and ``output = weights @ (x @ W_v)``.

    The exercise of notebook 01.
    """
    return run_checker(
        "check_causal_self_attention",
        fn,
        _cases(),
        _MISTAKES,
        extract=_weights_of,
        diagnosis=Diagnosis(axes=("query", "key"), regions=_regions),
    )
