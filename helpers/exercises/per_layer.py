"""Checkers for the exercises of notebook 18 (position per layer in the 2025-2026 models):
the ``proportional`` spectrum, attention with a learned sink, and Llama 4's query temperature."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from .._convert import as_numpy
from ..encodings.per_layer import (
    llama4_attention_temperature,
    partial_rotary_frequencies_of,
    proportional_frequencies,
)
from ..encodings.rotary import rotary_frequencies
from ._core import Diagnosis, Mistake, View, cases_from, run_checker
from ._diagnose import _ranges, knob_view

__all__ = [
    "check_proportional_frequencies",
    "check_sink_weights",
    "check_llama4_temperature",
]


# --- proportional vs partial_rotary_factor (notebook 18) ---------------------------------------

# (head_dim, partial_rotary_factor, base): Gemma 4's global layers, LFM3's, a small one by hand
# whose rotated pairs round down from 2.8 (round and ceil give 3), and the edges p = 1 (every
# pair) and a p whose rotated pairs round down from 2.4 (ceil gives 3, round 2)
_PROPORTIONAL_ARGS = [
    (512, 0.25, 1e6),
    (128, 0.5, 1e6),
    (8, 0.7, 100.0),
    (16, 0.3, 1e4),
    (16, 1.0, 1e4),
]


def _proportional(head_dim, p, base) -> torch.Tensor:
    return proportional_frequencies(head_dim, p, base)


def _partial_padded(head_dim, p, base) -> torch.Tensor:
    # partial_rotary_factor's meaning: the whole range recompressed into int(head_dim * p)
    # features, padded with zeros to head_dim / 2 pairs
    kept = partial_rotary_frequencies_of(head_dim, p, base) if int(head_dim * p) >= 2 else None
    omega = torch.zeros(head_dim // 2, dtype=torch.float64)
    if kept is not None:
        omega[: len(kept)] = kept
    return omega


def _partial_only(head_dim, p, base) -> torch.Tensor:
    return partial_rotary_frequencies_of(head_dim, p, base)


def _slowest_kept(head_dim, p, base) -> torch.Tensor:
    # the slow pairs kept and the fast ones zeroed
    omega = rotary_frequencies(head_dim, base)
    num_rotated = int(p * head_dim // 2)
    omega[: head_dim // 2 - num_rotated] = 0.0
    return omega


def _rounded_up(head_dim, p, base) -> torch.Tensor:
    omega = rotary_frequencies(head_dim, base)
    omega[math.ceil(p * head_dim / 2) :] = 0.0
    return omega


def _pair_kinds(got: np.ndarray, args: tuple) -> dict[str, list[int]]:
    """Which pairs hold the full head's frequency base**(-2k / head_dim), which 0, which else."""
    head_dim, base = args[0], args[2]
    full = float(base) ** (-np.arange(0, head_dim, 2) / head_dim)
    kinds: dict[str, list[int]] = {"keep": [], "zero": [], "other": []}
    for k, (g, f) in enumerate(zip(got, full, strict=True)):
        if abs(g - f) <= 1e-6 * f:
            kinds["keep"].append(k)
        elif abs(g) <= 1e-12:
            kinds["zero"].append(k)
        else:
            kinds["other"].append(k)
    return kinds


def _pair_words(kinds: dict[str, list[int]]) -> str:
    words = {
        "keep": "keep base**(-2k / head_dim) on pairs",
        "zero": "set pairs",
        "other": "give other values to pairs",
    }
    parts = [
        f"{words[kind]} {_ranges(pairs)}" + (" to 0" if kind == "zero" else "")
        for kind, pairs in kinds.items()
        if pairs
    ]
    return ", ".join(parts)


def _explain_pairs(viewed: list) -> str:
    """Which pairs the answer keeps at the full head's frequency, sets to 0, or changes."""
    texts = []
    for got, expected, case in viewed:
        if got.ndim != 1 or got.shape != expected.shape:
            return ""
        head_dim, p = case.args[0], case.args[1]
        texts.append((len(got), case.label, _pair_kinds(got, case.args), head_dim, p))
    size, label, mine, head_dim, p = min(texts, key=lambda t: t[0])
    rotated = int(p * head_dim // 2)
    theirs = {"keep": list(range(rotated)), "zero": list(range(rotated, size)), "other": []}
    text = f"on {label}, you {_pair_words(mine)}; expected: {_pair_words(theirs)}"
    doubled = all(
        not m["other"] and m["keep"] == list(range(min(2 * int(q * d // 2), n)))
        for n, _, m, d, q in texts
    )
    if doubled:
        text += (
            " (twice int(p * head_dim // 2) pairs on every failing case: p * head_dim counts "
            "features, and a pair holds two)"
        )
    return text + "."


def check_proportional_frequencies(fn: Callable[..., object]) -> bool:
    """Check ``fn(head_dim, partial_rotary_factor, base)`` -> ``rope_type="proportional"``'s
    frequencies ``(head_dim/2,)``: the first ``int(p * head_dim // 2)`` pairs keep
    ``base**(-2k / head_dim)``, the others are 0
    (:func:`~helpers.encodings.proportional_frequencies`).

    The first exercise of notebook 18.
    """
    cases = cases_from(
        _proportional,
        _PROPORTIONAL_ARGS,
        lambda d, p, base: f"head_dim={d}, partial_rotary_factor={p:g}, base={base:g}",
    )
    mistakes = [
        Mistake(
            _partial_padded,
            "you computed partial_rotary_factor's other meaning: the whole range recompressed "
            "into int(head_dim * p) features, base**(-2k / (head_dim * p)). 'proportional' keeps "
            "the full head's exponent 2k / head_dim and only zeroes the slow pairs.",
        ),
        Mistake(
            _partial_only,
            "you returned only the rotated features' frequencies with the exponent 2k / (head_dim "
            "* p): that is plain partial_rotary_factor. 'proportional' returns head_dim / 2 "
            "frequencies, with exponent 2k / head_dim, zeros for the slow pairs.",
        ),
        Mistake(
            _slowest_kept,
            "your nonzero frequencies are the slowest pairs'; p-RoPE keeps the fastest pairs (k = 0, "
            "1, ...) and sets the slow ones to 0.",
        ),
        Mistake(
            _rounded_up,
            "you rotate one pair too many: transformers takes int(p * head_dim // 2), rounding down.",
        ),
    ]
    return run_checker(
        "check_proportional_frequencies",
        fn,
        cases,
        mistakes,
        rtol=1e-6,
        atol=1e-9,
        diagnosis=Diagnosis(
            axes=("pair",),
            views=(
                View(
                    "the pairs",
                    lambda a, args: a,
                    axes=("pair",),
                    explain=_explain_pairs,
                    parts=False,
                ),
            ),
        ),
    )


# --- attention with a learned sink (notebook 18) -----------------------------------------------


def _scores(
    heads: int, length: int, seed: int, window: int | None, padded: int = 0
) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(heads, length, length, generator=g, dtype=torch.float64) * 2.0
    i = torch.arange(length)[:, None]
    j = torch.arange(length)[None, :]
    visible = j <= i if window is None else (j <= i) & (j > i - window)
    visible = visible & (j >= padded)  # left padding: the first `padded` keys are hidden
    return scores.masked_fill(~visible, float("-inf"))


# (scores (heads, L, L) with -inf where masked, sinks (heads,)): causal, windowed, one head with
# a padded first token (its query row sees no key: all its mass goes to the sink, weights 0), and
# a sink that takes nearly all the mass
_SINK_ARGS = [
    (_scores(2, 5, 0, None), torch.tensor([0.5, -1.0], dtype=torch.float64)),
    (_scores(3, 6, 1, 3), torch.tensor([1.0, 2.0, -2.0], dtype=torch.float64)),
    (_scores(1, 4, 2, None, padded=1), torch.tensor([-0.5], dtype=torch.float64)),
    (_scores(2, 3, 3, 2), torch.tensor([12.0, 3.0], dtype=torch.float64)),
]


def _sink_weights(scores, sinks) -> torch.Tensor:
    column = sinks[:, None, None].expand(*scores.shape[:-1], 1)
    return torch.softmax(torch.cat((scores, column), dim=-1), dim=-1)[..., :-1]


def _sink_dropped_before(scores, sinks) -> torch.Tensor:
    return torch.softmax(scores, dim=-1)


def _sink_column_kept(scores, sinks) -> torch.Tensor:
    column = sinks[:, None, None].expand(*scores.shape[:-1], 1)
    return torch.softmax(torch.cat((scores, column), dim=-1), dim=-1)


def _sink_not_exponentiated(scores, sinks) -> torch.Tensor:
    numerators = torch.exp(scores)
    return numerators / (numerators.sum(-1, keepdim=True) + sinks[:, None, None])


def _sink_softmax_over_queries(scores, sinks) -> torch.Tensor:
    column = sinks[:, None, None].expand(*scores.shape[:-1], 1)
    return torch.softmax(torch.cat((scores, column), dim=-1), dim=-2)[..., :-1]


def _sink_at_the_front_dropped_last(scores, sinks) -> torch.Tensor:
    # the column put first, then the last column dropped: the sink kept, the last key lost
    column = sinks[:, None, None].expand(*scores.shape[:-1], 1)
    return torch.softmax(torch.cat((column, scores), dim=-1), dim=-1)[..., :-1]


def _sink_regions(args: tuple, shape: tuple) -> list[tuple[str, np.ndarray]]:
    visible = np.isfinite(as_numpy(args[0]))
    if visible.shape != tuple(shape):
        return []
    return [("where the key is visible", visible), ("where it is masked (-inf)", ~visible)]


def _softmax_over_visible(scores: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """softmax(scores) over the visible keys (rows with none: 0), logsumexp per row (rows with
    none: 0) and which rows see a key."""
    visible = np.isfinite(scores)
    rows = visible.any(-1)
    top = np.where(rows, np.where(visible, scores, -np.inf).max(-1), 0.0)
    e = np.where(visible, np.exp(np.where(visible, scores, 0.0) - top[..., None]), 0.0)
    total = e.sum(-1)
    plain = e / np.where(rows, total, 1.0)[..., None]
    lse = np.where(rows, np.log(np.where(rows, total, 1.0)) + top, 0.0)
    return plain, lse, rows


def _implied_sinks(weights: np.ndarray, args: tuple) -> np.ndarray:
    """The sink logit each row implies, log(share / row sum) + logsumexp(the row's scores),
    when the keys' weights are softmax(scores) scaled by the row sum; (heads, L_q), 0 on rows
    that see no key."""
    scores = as_numpy(args[0]).astype(np.float64)
    if weights.shape != scores.shape:
        raise ValueError("not one weight per score")
    plain, lse, rows = _softmax_over_visible(scores)
    weights = np.where(rows[..., None], weights, 0.0)  # rows that see no key: another view's
    total = weights.sum(-1)
    if not np.allclose(weights, plain * total[..., None], rtol=1e-6, atol=1e-12):
        raise ValueError("the keys' weights are not the scores' softmax scaled")
    share = 1 - total
    if np.any(share[rows] <= 0) or np.any(total[rows] <= 0):
        raise ValueError("no share left for the sink, or none for the keys")
    ratio = np.where(rows, share, 1.0) / np.where(rows, total, 1.0)
    return np.where(rows, np.log(ratio) + lse, 0.0)


def _explain_sinks(viewed: list) -> str:
    """Name the sink logit the rows imply: -s_h, s_h plus the row's maximum, head 0's."""
    models = [
        (lambda s, a: -s[:, None], "exp(-s_h): the sink logit's sign is flipped"),
        (
            lambda s, a: s[:, None] + np.where(np.isfinite(a), a, -np.inf).max(-1),
            "exp(s_h + m), m the row's largest score: you subtracted m from the scores (a "
            "stable softmax) but not from the sink logit",
        ),
        (lambda s, a: np.full(a.shape[:2], s[0]), "head 0's sink logit s_0 for every head"),
    ]
    for model, words in models:
        clear = False
        for got, expected, case in viewed:
            scores = as_numpy(case.args[0]).astype(np.float64)
            sinks = as_numpy(case.args[1]).astype(np.float64)
            rows = np.isfinite(scores).any(-1)
            with np.errstate(all="ignore"):
                other = np.broadcast_to(model(sinks, scores), got.shape)
            if not np.allclose(got[rows], other[rows], rtol=1e-6, atol=1e-6):
                break
            clear = clear or not np.allclose(other[rows], expected[rows], rtol=1e-3, atol=1e-3)
        else:
            if clear:
                return (
                    "your keys' weights are the softmax of the scores scaled down, as they "
                    "should be, but the sink's share in each row that sees a key is that of "
                    f"{words}."
                )
    got, expected, case = min(viewed, key=lambda v: v[0].size)
    sinks = as_numpy(case.args[1]).astype(np.float64)
    rows = np.isfinite(as_numpy(case.args[0])).any(-1)
    for h in range(got.shape[0]):
        implied = got[h][rows[h]]
        if not np.allclose(implied, sinks[h], rtol=1e-3, atol=1e-3):
            shown = ", ".join(f"{v:.4g}" for v in implied[:6])
            return (
                "your keys' weights are the softmax of the scores scaled down, as they should "
                f"be, but the sink's share is not that of exp(s_h): on {case.label}, the rows of "
                f"head {h} imply sink logits {shown} where s_{h} = {sinks[h]:.4g} is expected."
            )
    return ""


def _explain_masked_keys(viewed: list) -> str:
    """A masked key (score -inf) must get weight 0."""
    found = []
    for got, _, case in viewed:
        scores = as_numpy(case.args[0])
        if got.shape != scores.shape:
            return ""
        masked = ~np.isfinite(scores)
        if not np.any(masked):
            continue
        if not np.any(np.abs(got[masked]) > 1e-9):
            return ""
        found.append(case.label)
    if not found:
        return ""
    return (
        f"your weights on masked keys (score -inf) are not 0 (on {found[0]}): a masked key "
        "gets exp(-inf) = 0; keep the -inf scores as they are in the softmax."
    )


def _explain_empty_rows(viewed: list) -> str:
    """A row whose keys are all masked must be all 0 (its mass goes to the sink)."""
    found = []
    for got, expected, case in viewed:
        scores = as_numpy(case.args[0])
        if got.shape != scores.shape:
            return ""
        empty = ~np.isfinite(scores).any(-1)
        scale = float(np.max(np.abs(expected), initial=1.0))
        elsewhere = np.abs(got[~empty] - expected[~empty]) <= 1e-6 * scale
        if not np.all(elsewhere) or not np.any(empty):
            return ""
        rows = got[empty]
        kind = "nan" if np.any(np.isnan(rows)) else ("not 0" if np.any(rows != 0) else "")
        if not kind:
            return ""
        found.append((case.label, kind))
    if not found:
        return ""
    label, kind = found[0]
    return (
        f"your rows are right except those of a query that sees no key (every score -inf, a "
        f"padded token; on {label}): yours are {kind} there. With a sink such a row puts all "
        "its mass on the sink, so its weights are 0 (a softmax that includes the sink's "
        "column, or the sink in the maximum you subtract, gives that)."
    )


def check_sink_weights(fn: Callable[..., object]) -> bool:
    """Check ``fn(scores, sinks)`` -> GPT-OSS's attention weights: ``scores (heads, L_q, L_k)``
    (``-inf`` where masked), ``sinks (heads,)``; the sink logit as an extra column, softmax over
    ``L_k + 1``, the column dropped after: ``(heads, L_q, L_k)``, rows summing below 1
    (:func:`~helpers.attention_sinks.sink_attention`).

    The second exercise of notebook 18.
    """
    cases = cases_from(
        _sink_weights,
        _SINK_ARGS,
        lambda scores, sinks: (
            f"{scores.shape[0]} head(s), L={scores.shape[1]}, sinks={[round(float(s), 1) for s in sinks]}"
        ),
    )
    mistakes = [
        Mistake(
            _sink_dropped_before,
            "your rows sum to 1: the sink's share is missing (the sink left out of the softmax, "
            "added to every score, which the softmax ignores, or the weights renormalised after "
            "dropping its column). Its share must stay out of the keys' weights.",
        ),
        Mistake(
            _sink_column_kept,
            "you returned L_k + 1 columns: drop the sink's column after the softmax.",
        ),
        Mistake(
            _sink_not_exponentiated,
            "you added the sink logit s_h itself to the denominator; the softmax adds exp(s_h).",
        ),
        Mistake(
            _sink_at_the_front_dropped_last,
            "your sink column sits first but you dropped the last column: you dropped a key and "
            "kept the sink.",
        ),
        Mistake(
            _sink_softmax_over_queries,
            "your softmax runs over the queries (dim=-2): each row, one query's scores and the "
            "sink, is what the softmax normalises (dim=-1).",
        ),
    ]
    return run_checker(
        "check_sink_weights",
        fn,
        cases,
        mistakes,
        rtol=1e-6,
        atol=1e-9,
        diagnosis=Diagnosis(
            axes=("head", "query row", "key"),
            regions=_sink_regions,
            views=(
                View(
                    "the weights of masked keys",
                    lambda a, args: a,
                    explain=_explain_masked_keys,
                    parts=False,
                ),
                View(
                    "the rows of queries that see no key",
                    lambda a, args: a,
                    explain=_explain_empty_rows,
                    parts=False,
                ),
                View(
                    "the sink logits your rows imply",
                    _implied_sinks,
                    axes=("head", "query row"),
                    explain=_explain_sinks,
                ),
            ),
        ),
    )


# --- Llama 4's query temperature (notebook 18) -------------------------------------------------

# (positions, floor_scale, attn_scale): around the first steps of Llama 4's default (16370 is
# 16384 in bfloat16: one step early there, not on the positions around it), a small
# floor_scale where every step shows, and position 0 alone
_TEMPERATURE_ARGS = [
    (torch.tensor([0, 8190, 8191, 8192, 16370, 16383, 24575, 100000]), 8192.0, 0.1),
    (torch.arange(20), 4.0, 0.5),
    (torch.tensor([0]), 1.0, 1.0),
]


def _temperature(positions, floor_scale, attn_scale) -> torch.Tensor:
    return llama4_attention_temperature(positions, floor_scale, attn_scale)


def _temperature_without_plus_one(positions, floor_scale, attn_scale) -> torch.Tensor:
    return torch.log1p(torch.floor(positions.float() / floor_scale)) * attn_scale + 1.0


def _temperature_log_not_log1p(positions, floor_scale, attn_scale) -> torch.Tensor:
    return (
        torch.log(torch.floor((positions.float() + 1) / floor_scale).clamp(min=1)) * attn_scale + 1
    )


def _temperature_not_floored(positions, floor_scale, attn_scale) -> torch.Tensor:
    return torch.log1p((positions.float() + 1) / floor_scale) * attn_scale + 1.0


def _temperature_model(
    args,
    shift=1,
    rounding="floor",
    log="log1p",
    scale="times",
    outside=False,
    sign=1,
    swap=False,
    one=1.0,
    dtype=torch.float64,
):
    positions, floor_scale, attn_scale = args
    if swap:
        floor_scale, attn_scale = attn_scale, floor_scale
    t = as_numpy((torch.as_tensor(positions).to(dtype) + shift).double())
    ratio = t / floor_scale
    steps = {"floor": np.floor, "ceil": np.ceil, "round": np.round, "none": lambda x: x}[rounding](
        ratio
    )
    growth = {
        "log1p": np.log1p,
        "log2": lambda x: np.log2(1 + x),
        "log10": lambda x: np.log10(1 + x),
        "log": np.log,
        "log_at_least_1": lambda x: np.log(np.maximum(x, 1.0)),
    }[log](steps)
    if not np.all(np.isfinite(growth)):
        raise ValueError("the logarithm of 0")
    if outside:  # (1 + log1p(...)) * attn_scale
        return (1 + growth) * attn_scale
    growth = growth * attn_scale if scale == "times" else growth / attn_scale
    return one + sign * growth


_TEMPERATURE_KNOBS = {
    "dtype": [
        (
            torch.bfloat16,
            "the positions in bfloat16, which keeps 8 significant bits (8191 becomes 8192): "
            "count in an integer or float32/float64 tensor",
        )
    ],
    "shift": [
        (2, "t + 2 in place of t + 1 (the steps come one position early)"),
        (0, "t in place of t + 1"),
    ],
    "rounding": [
        ("ceil", "ceil in place of floor"),
        ("round", "round in place of floor"),
        ("none", "no floor"),
    ],
    "log": [
        ("log2", "log2(1 + x) in place of the natural log1p"),
        ("log10", "log10(1 + x) in place of the natural log1p"),
        ("log", "log(x) in place of log1p(x) = log(1 + x)"),
        ("log_at_least_1", "log(max(x, 1)) in place of log1p(x) = log(1 + x)"),
    ],
    "scale": [("over", "log1p(...) divided by attn_scale, not multiplied")],
    "outside": [(True, "attn_scale multiplying 1 + log1p(...): (1 + log1p(...)) * attn_scale")],
    "sign": [(-1, "1 - attn_scale * log1p(...): the temperature shrinks where it should grow")],
    "swap": [(True, "floor_scale and attn_scale exchanged (check the order of the arguments)")],
    "one": [(0.0, "no 1 + in front: the temperature is 1 + attn_scale * log1p(...)")],
}


def check_llama4_temperature(fn: Callable[..., object]) -> bool:
    """Check ``fn(positions, floor_scale, attn_scale)`` -> Llama 4's query temperature
    ``log1p(floor((t + 1) / floor_scale)) * attn_scale + 1``, one value per position
    (:func:`~helpers.encodings.llama4_attention_temperature`).

    The third exercise of notebook 18.
    """
    cases = cases_from(
        _temperature,
        _TEMPERATURE_ARGS,
        lambda t, floor_scale, attn_scale: (
            f"{len(t)} positions up to {int(t.max())}, floor_scale={floor_scale:g}, "
            f"attn_scale={attn_scale:g}"
        ),
    )
    mistakes = [
        Mistake(
            _temperature_without_plus_one,
            "your steps come one position late: Llama 4 counts t + 1 (the number of tokens up to "
            "and including t). floor(t / floor_scale) is Ministral 3's form, not Llama 4's.",
        ),
        Mistake(
            _temperature_log_not_log1p,
            "you took log(floor(...)), not log1p(floor(...)) = log(1 + floor(...)).",
        ),
        Mistake(
            _temperature_not_floored,
            "your temperature grows smoothly: Llama 4 floors (t + 1) / floor_scale first, so it "
            "moves in steps and is exactly 1 before the first step.",
        ),
    ]
    return run_checker(
        "check_llama4_temperature",
        fn,
        cases,
        mistakes,
        rtol=1e-6,
        atol=1e-7,
        diagnosis=Diagnosis(
            axes=("position",), views=(knob_view(_temperature_model, _TEMPERATURE_KNOBS),)
        ),
    )
