"""Checkers for the attention exercises (notebooks 06-08).

- ``check_attention(fn)``: ``fn(q, k, v, mask)`` returns ``(output, weights)`` like
  :func:`helpers.attention.scaled_dot_product_attention` (``mask`` may be None; True = may attend).
- ``check_causal_mask(fn)``: ``fn(seq_len)`` returns the ``(seq_len, seq_len)`` causal mask.
- ``check_padding_mask(fn)``: ``fn(tokens, pad_id)`` returns the ``(batch, 1, 1, seq_len)`` mask.

The hidden cases never mask a whole row, so a plain ``masked_fill(-inf)`` + softmax passes.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from ..attention import causal_mask, padding_mask, scaled_dot_product_attention
from ._core import Case, CaseFailedError, Mistake, as_numpy, cases_from, run_checker
from ._diagnose import Diagnosis, View

__all__ = ["check_attention", "check_causal_mask", "check_padding_mask"]

_MASK_HINT = (
    "build it with comparisons or torch.ones(..., dtype=torch.bool); a 0/1 float mask given to "
    "F.scaled_dot_product_attention is ADDED to the scores and masks nothing (an additive float "
    "mask holds 0 and -inf)."
)


# ------------------------------------------------------------------------------ attention


def _attention_cases() -> list[Case]:
    generator = torch.Generator().manual_seed(0)

    def randn(*shape: int) -> torch.Tensor:
        return torch.randn(*shape, generator=generator, dtype=torch.float64)

    # A mask in which every query row sees some keys and misses others (so that a flipped
    # polarity gives a finite, recognisable answer rather than NaN).
    mixed = torch.tensor(
        [
            [True, False, True, True, False],
            [False, True, True, False, True],
            [True, True, False, False, False],
        ]
    )  # (L_q=3, L_k=5)
    cases = [
        ((randn(1, 4), randn(2, 4), randn(2, 3), None), "one query, two keys, no mask"),
        ((randn(2, 3, 8), randn(2, 5, 8), randn(2, 5, 6), None), "batch of 2, L_q=3, L_k=5"),
        ((randn(2, 3, 8), randn(2, 5, 8), randn(2, 5, 6), mixed), "L_q=3, L_k=5 with a mask"),
        (
            (randn(2, 4, 6, 16), randn(2, 4, 6, 16), randn(2, 4, 6, 6), causal_mask(6)),
            "4 heads, causal mask",
        ),
    ]
    return [Case(args, scaled_dot_product_attention(*args)[1], label) for args, label in cases]


def _softmax_weights(q, k, mask, scale: float, dim: int = -1, polarity: bool = True):
    scores = q @ k.transpose(-2, -1) * scale
    if mask is not None:
        scores = scores.masked_fill(~mask if polarity else mask, float("-inf"))
    return torch.softmax(scores, dim=dim)


def _no_scale(q, k, v, mask):
    return _softmax_weights(q, k, mask, 1.0)


def _divided_by_d_k(q, k, v, mask):
    return _softmax_weights(q, k, mask, 1.0 / q.shape[-1])


def _wrong_polarity(q, k, v, mask):
    return _softmax_weights(q, k, mask, 1.0 / math.sqrt(q.shape[-1]), polarity=False)


def _softmax_over_queries(q, k, v, mask):
    return _softmax_weights(q, k, mask, 1.0 / math.sqrt(q.shape[-1]), dim=-2)


def _mask_ignored(q, k, v, mask):
    return _softmax_weights(q, k, None, 1.0 / math.sqrt(q.shape[-1]))


def _mask_after_softmax(q, k, v, mask):
    weights = _softmax_weights(q, k, None, 1.0 / math.sqrt(q.shape[-1]))
    return weights if mask is None else weights * mask  # rows no longer sum to 1


def _weights_of(result: object, args: tuple) -> torch.Tensor:
    """The weights of ``(output, weights)``, once output == weights @ v (pristine ``v``)."""
    q, k, v, _ = args
    if not isinstance(result, (tuple, list)) or len(result) != 2:
        raise CaseFailedError(
            f"returned {type(result).__name__}: return a pair (output, weights), like "
            "helpers.attention.scaled_dot_product_attention"
        )
    output, weights = _as_array(result[0], "output"), _as_array(result[1], "weights")
    expected_shape = (*q.shape[:-1], v.shape[-1])
    if tuple(output.shape) != expected_shape:
        raise CaseFailedError(
            f"output must have shape (..., L_q, d_v) = {expected_shape}, got {tuple(output.shape)}"
        )
    if weights.shape == (*q.shape[:-1], k.shape[-2]) and not torch.allclose(
        output, weights @ v, rtol=1e-4, atol=1e-5
    ):
        raise CaseFailedError("output must equal weights @ v (the weighted average of the values)")
    return weights


def _as_array(value: object, name: str) -> torch.Tensor:
    try:
        array = as_numpy(value)
    except (ValueError, TypeError, RuntimeError):
        raise CaseFailedError(
            f"{name} is a {type(value).__name__} that is not a rectangular array"
        ) from None
    if array.dtype.kind not in "biuf":
        raise CaseFailedError(
            f"{name} is {type(value).__name__} of {array.dtype} values, expected a tensor"
        )
    return torch.as_tensor(array, dtype=torch.float64)


def _attention_regions(args: tuple, shape: tuple) -> list[tuple[str, np.ndarray]]:
    """Where the mask lets a query see a key, and where it hides it (no mask: no regions)."""
    mask = args[3]
    if mask is None:
        return []
    keep = np.broadcast_to(as_numpy(mask).astype(bool), shape)
    return [("where the mask lets the query see the key", keep), ("where it hides it", ~keep)]


def _implied_scores(weights: np.ndarray, args: tuple) -> np.ndarray:
    """Softmax weights back to scores, up to a constant per row (over the visible keys)."""
    mask = args[3]
    keep = (
        np.ones(weights.shape, bool)
        if mask is None
        else np.broadcast_to(as_numpy(mask), weights.shape)
    )
    if np.any(weights[keep] <= 0):
        raise ValueError("a visible key with no weight has no score")
    logs = np.where(keep, np.log(np.where(keep, weights, 1.0)), 0.0)
    mean = logs.sum(-1, keepdims=True) / np.maximum(keep.sum(-1, keepdims=True), 1)
    return np.where(keep, logs - mean, 0.0)


def _hidden_weights(weights: np.ndarray, args: tuple) -> np.ndarray:
    """The weights on the keys the mask hides (none without a mask: not applicable)."""
    mask = args[3]
    if mask is None:
        raise ValueError("no mask: no hidden keys")
    return weights[~np.broadcast_to(as_numpy(mask).astype(bool), weights.shape)]


def _explain_hidden_weights(viewed: list) -> str:
    """Masked keys that still get weight, on every failing case (all of them have a mask)."""
    worst = []
    for got, _, case in viewed:
        if got.size == 0 or float(np.max(np.abs(got))) <= 1e-3:
            return ""
        worst.append((float(np.max(np.abs(got))), case.label))
    largest, label = max(worst)
    return (
        f"the keys the mask hides still get weight (up to {largest:.3g} on {label}): a "
        "hidden key gets weight 0 only when its score is -inf before the softmax (a score of "
        "0, or a score multiplied by the mask, still gets weight)."
    )


def check_attention(fn: Callable) -> bool:
    """Check ``fn(q, k, v, mask) -> (output, weights)`` against scaled dot-product attention.

    ``q (..., L_q, d_k)``, ``k (..., L_k, d_k)``, ``v (..., L_k, d_v)`` are float64 tensors and
    ``mask`` is None or a boolean tensor broadcastable to ``(..., L_q, L_k)``, True = may attend.

    The exercise of notebook 06; used again in notebook 13.
    """
    mistakes = [
        Mistake(
            _no_scale,
            "the scores are not divided by sqrt(d_k): use q @ k^T / sqrt(d_k), or the softmax "
            "saturates as d_k grows.",
        ),
        Mistake(_divided_by_d_k, "you divide by d_k; divide by sqrt(d_k)."),
        Mistake(
            _wrong_polarity,
            "the mask polarity is flipped: in this course True means 'may attend', so fill "
            "the scores where the mask is False (masked_fill(~mask, -inf)).",
        ),
        Mistake(
            _softmax_over_queries,
            "the softmax runs over the wrong axis: normalise over the keys (dim=-1), so that "
            "each query's weights sum to 1.",
        ),
        Mistake(
            _mask_ignored, "the mask is ignored: fill masked scores with -inf before the softmax."
        ),
        Mistake(
            _mask_after_softmax,
            "the mask is applied after the softmax, so the rows no longer sum to 1: fill the "
            "scores with -inf before the softmax instead.",
        ),
    ]
    return run_checker(
        "check_attention",
        fn,
        _attention_cases(),
        mistakes,
        extract=_weights_of,
        generic_hint="compare your weights with softmax(q @ k^T / sqrt(d_k)) on the "
        "first case, by hand.",
        diagnosis=Diagnosis(
            axes=("query", "key"),
            regions=_attention_regions,
            views=(
                View(
                    "the scores your weights imply for the keys each query may see "
                    "(log-weights less their row mean)",
                    _implied_scores,
                    axes=("query", "key"),
                ),
                View(
                    "your weights on the keys the mask hides",
                    _hidden_weights,
                    explain=_explain_hidden_weights,
                    parts=False,
                ),
            ),
        ),
    )


# ------------------------------------------------------------------------------ causal mask


def _upper_triangular(seq_len: int) -> torch.Tensor:
    return torch.ones(seq_len, seq_len, dtype=torch.bool).triu()


def _strict_lower(seq_len: int) -> torch.Tensor:
    return torch.ones(seq_len, seq_len, dtype=torch.bool).tril(diagonal=-1)


def _ignore_polarity(seq_len: int) -> torch.Tensor:
    return ~causal_mask(seq_len)


def check_causal_mask(fn: Callable[[int], object]) -> bool:
    """Check ``fn(seq_len)``: a boolean ``(seq_len, seq_len)`` torch tensor, True where ``j <= i``
    (a NumPy array fails: ``masked_fill`` takes a tensor).

    The exercise of notebook 07.
    """
    cases = cases_from(causal_mask, [(4,), (1,), (2,), (9,)], lambda n: f"seq_len={n}")
    mistakes = [
        Mistake(
            _ignore_polarity,
            "your mask is True where attention is forbidden (nn.MultiheadAttention's "
            "convention); in this course True means 'may attend': query i sees keys j <= i.",
        ),
        Mistake(
            _upper_triangular,
            "your mask is upper triangular, so each query sees the future: rows are queries, "
            "columns keys, and query i may attend to keys j <= i (tril).",
        ),
        Mistake(
            _strict_lower,
            "the diagonal is False, so a token cannot attend to itself (and the first row is "
            "fully masked): keep j == i visible.",
        ),
    ]
    return run_checker(
        "check_causal_mask",
        fn,
        cases,
        mistakes,
        generic_hint="print your mask for seq_len=3: it should be lower triangular.",
        mask_hint=_MASK_HINT,
        returns="tensor",
        diagnosis=Diagnosis(axes=("query", "key")),
    )


# ------------------------------------------------------------------------------ padding mask


def _padding_flipped(tokens: torch.Tensor, pad_id: int) -> torch.Tensor:
    return ~padding_mask(tokens, pad_id)


def _pad_id_zero(tokens: torch.Tensor, pad_id: int) -> torch.Tensor:
    return padding_mask(tokens, 0)


def check_padding_mask(fn: Callable[[torch.Tensor, int], object]) -> bool:
    """Check ``fn(tokens, pad_id)``: a boolean ``(batch, 1, 1, seq_len)`` torch tensor, True for
    real tokens (a NumPy array fails: ``masked_fill`` takes a tensor).

    The exercise of notebook 07.
    """
    args = [
        (torch.tensor([[5, 7, 2, 0, 0], [3, 1, 4, 1, 5]]), 0),
        (torch.tensor([[1, 9, 9, 1]]), 1),  # padding on the left too
        (torch.tensor([[4, 2, 3, 3], [4, 3, 3, 3], [2, 3, 3, 3]]), 3),
    ]
    cases = cases_from(
        padding_mask,
        args,
        lambda tokens, pad: f"tokens of shape {tuple(tokens.shape)}, pad_id={pad}",
    )
    mistakes = [
        Mistake(
            _padding_flipped,
            "the polarity is flipped: True must mark real tokens (may attend), False padding.",
        ),
        Mistake(_pad_id_zero, "you compare with 0; compare with the pad_id argument."),
    ]
    return run_checker(
        "check_padding_mask",
        fn,
        cases,
        mistakes,
        generic_hint="the mask is (tokens != pad_id) with two singleton axes "
        "inserted: (batch, 1, 1, seq_len) broadcasts over heads and queries.",
        mask_hint=_MASK_HINT,
        returns="tensor",
        diagnosis=Diagnosis(axes=("sequence", "", "", "key")),
    )
