"""Checkers for the exercises of notebook 18 (position per layer in the 2025-2026 models):
the ``proportional`` spectrum, attention with a learned sink, and Llama 4's query temperature."""

from __future__ import annotations

import math
from collections.abc import Callable

import torch

from ..encodings.per_layer import (
    llama4_attention_temperature,
    partial_rotary_frequencies_of,
    proportional_frequencies,
)
from ..encodings.rotary import rotary_frequencies
from ._core import Mistake, cases_from, run_checker

__all__ = [
    "check_proportional_frequencies",
    "check_sink_weights",
    "check_llama4_temperature",
]


# --- proportional vs partial_rotary_factor (notebook 18) ---------------------------------------

# (head_dim, partial_rotary_factor, base): Gemma 4's global layers, LFM3's, a small one by hand,
# and the edges p = 1 (every pair) and a p whose rotated pairs round down (0.3 * 16 // 2 = 2)
_PROPORTIONAL_ARGS = [
    (512, 0.25, 1e6),
    (128, 0.5, 1e6),
    (8, 0.5, 100.0),
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
    return run_checker("check_proportional_frequencies", fn, cases, mistakes, rtol=1e-6, atol=1e-9)


# --- attention with a learned sink (notebook 18) -----------------------------------------------


def _scores(heads: int, length: int, seed: int, window: int | None) -> torch.Tensor:
    g = torch.Generator().manual_seed(seed)
    scores = torch.randn(heads, length, length, generator=g, dtype=torch.float64) * 2.0
    i = torch.arange(length)[:, None]
    j = torch.arange(length)[None, :]
    visible = j <= i if window is None else (j <= i) & (j > i - window)
    return scores.masked_fill(~visible, float("-inf"))


# (scores (heads, L, L) with -inf where masked, sinks (heads,)): causal, windowed, one head, and
# a sink that takes nearly all the mass
_SINK_ARGS = [
    (_scores(2, 5, 0, None), torch.tensor([0.5, -1.0], dtype=torch.float64)),
    (_scores(3, 6, 1, 3), torch.tensor([1.0, 2.0, -2.0], dtype=torch.float64)),
    (_scores(1, 4, 2, None), torch.tensor([-0.5], dtype=torch.float64)),
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


def _sink_at_the_front_dropped_last(scores, sinks) -> torch.Tensor:
    # the column put first, then the last column dropped: the sink kept, the last key lost
    column = sinks[:, None, None].expand(*scores.shape[:-1], 1)
    return torch.softmax(torch.cat((column, scores), dim=-1), dim=-1)[..., :-1]


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
            "your rows sum to 1: the sink was dropped before the softmax (or the weights were "
            "renormalised after dropping it). Its share must stay out of the keys' weights.",
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
    ]
    return run_checker("check_sink_weights", fn, cases, mistakes, rtol=1e-6, atol=1e-9)


# --- Llama 4's query temperature (notebook 18) -------------------------------------------------

# (positions, floor_scale, attn_scale): around the first steps of Llama 4's default, a small
# floor_scale where every step shows, and position 0 alone
_TEMPERATURE_ARGS = [
    (torch.tensor([0, 8190, 8191, 8192, 16383, 24575, 100000]), 8192.0, 0.1),
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
    return run_checker("check_llama4_temperature", fn, cases, mistakes, rtol=1e-6, atol=1e-7)
