"""Notebook 18: the proportional spectrum, attention with a learned sink, Llama 4's temperature."""

from __future__ import annotations

import math

import numpy as np
import torch

from . import right, variant, wrong

# --- check_proportional_frequencies(head_dim, partial_rotary_factor, base) -> (head_dim/2,) ----


def proportional_learner(
    head_dim,
    partial_rotary_factor,
    base,
    *,
    exponent=2.0,
    width="head_dim",
    count="pairs",
    rounding=int,
    keep="fast",
    first_pair=0,
    rest=0.0,
):
    n = head_dim // 2
    if count == "pairs":
        rotated = rounding(partial_rotary_factor * head_dim / 2)
    else:  # the rotated features counted as pairs
        rotated = rounding(partial_rotary_factor * head_dim)
    d = head_dim if width == "head_dim" else int(head_dim * partial_rotary_factor)
    out = []
    for k in range(n):
        omega = base ** (-exponent * (k + first_pair) / d)
        kept = k < rotated if keep == "fast" else k >= rotated
        out.append(omega if kept else rest)
    return torch.tensor(out, dtype=torch.float64)


wrong("check_proportional_frequencies", r"other meaning")(
    variant(proportional_learner, "proportional_exponent_over_rotated_width", width="rotated")
)
wrong("check_proportional_frequencies", r"square roots of the expected")(
    variant(proportional_learner, "proportional_dimension_index_exponent", exponent=1.0)
)
wrong("check_proportional_frequencies", r"expected ones squared")(
    variant(proportional_learner, "proportional_exponent_4k", exponent=4.0)
)
wrong("check_proportional_frequencies", r"give other values to pairs 1; expected")(
    variant(proportional_learner, "proportional_positive_exponent", exponent=-2.0)
)
wrong("check_proportional_frequencies", r"twice int\(p \* head_dim // 2\) pairs")(
    variant(proportional_learner, "proportional_features_counted_as_pairs", count="features")
)
wrong("check_proportional_frequencies", r"one pair too many")(
    variant(proportional_learner, "proportional_rounded_up", rounding=math.ceil)
)
wrong("check_proportional_frequencies", r"one pair too many")(
    variant(proportional_learner, "proportional_rounded_to_nearest", rounding=round)
)
wrong("check_proportional_frequencies", r"on pairs 2-3, set pairs 0-1 to 0")(
    variant(proportional_learner, "proportional_fast_pairs_zeroed", keep="slow")
)
wrong("check_proportional_frequencies", r"give other values to pairs 0-1; expected")(
    variant(proportional_learner, "proportional_pairs_from_one", first_pair=1)
)
wrong("check_proportional_frequencies", r"give other values to pairs 2-3; expected")(
    variant(proportional_learner, "proportional_rest_set_to_one", rest=1.0)
)


@wrong("check_proportional_frequencies", r"you keep base\*\*\(-2k / head_dim\) on pairs 0-3;")
def proportional_nothing_zeroed(head_dim, partial_rotary_factor, base):
    return base ** (-torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim)


@wrong("check_proportional_frequencies", r"fewer pairs than expected")
def proportional_only_the_rotated(head_dim, partial_rotary_factor, base):
    rotated = int(partial_rotary_factor * head_dim // 2)
    return base ** (-torch.arange(rotated, dtype=torch.float64) * 2 / head_dim)


@wrong("check_proportional_frequencies", r"give other values to pairs 1; expected")
def proportional_integer_exponent(head_dim, partial_rotary_factor, base):
    k = np.arange(head_dim // 2)
    omega = base ** -(2 * k // head_dim).astype(np.float64)  # integer division: exponent 0
    omega[int(partial_rotary_factor * head_dim // 2) :] = 0.0
    return omega


@wrong("check_proportional_frequencies", r"give other values to pairs 1; expected")
def proportional_linspace_exponent(head_dim, partial_rotary_factor, base):
    exponents = torch.linspace(0, 1, head_dim // 2, dtype=torch.float64)  # ends at 1/base
    omega = base**-exponents
    omega[int(partial_rotary_factor * head_dim // 2) :] = 0.0
    return omega


@wrong("check_proportional_frequencies", r"give other values to pairs 0-1; expected")
def proportional_wavelengths(head_dim, partial_rotary_factor, base):
    k = torch.arange(head_dim // 2, dtype=torch.float64)
    wavelength = 2 * math.pi * base ** (2 * k / head_dim)
    wavelength[int(partial_rotary_factor * head_dim // 2) :] = 0.0
    return wavelength


@right("check_proportional_frequencies")
def proportional_loop(head_dim, partial_rotary_factor, base):
    return proportional_learner(head_dim, partial_rotary_factor, base)


@right("check_proportional_frequencies")
def proportional_numpy_where(head_dim, partial_rotary_factor, base):
    k = np.arange(head_dim // 2)
    keep = k < int(partial_rotary_factor * head_dim // 2)
    return np.where(keep, 1.0 / base ** (2 * k / head_dim), 0.0)


@right("check_proportional_frequencies")
def proportional_float32_mask(head_dim, partial_rotary_factor, base):
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    mask = torch.arange(head_dim // 2) < int(partial_rotary_factor * head_dim / 2)
    return inv_freq * mask


@right("check_proportional_frequencies")
def proportional_concatenated(head_dim, partial_rotary_factor, base):
    rotated = int(partial_rotary_factor * head_dim // 2)
    fast = torch.exp(-math.log(base) * torch.arange(rotated, dtype=torch.float64) * 2 / head_dim)
    return torch.cat([fast, torch.zeros(head_dim // 2 - rotated, dtype=torch.float64)])


# --- check_sink_weights(scores (heads, L_q, L_k), sinks (heads,)) -> (heads, L_q, L_k) ---------


@wrong("check_sink_weights", r"rows sum to 1: the sink's share is missing")
def sink_ignored(scores, sinks):
    return torch.softmax(scores, dim=-1)


@wrong("check_sink_weights", r"renormalised after dropping")
def sink_renormalised(scores, sinks):
    column = sinks[:, None, None].expand(-1, scores.shape[1], 1)
    weights = torch.softmax(torch.cat([scores, column], dim=-1), dim=-1)[..., :-1]
    return weights / weights.sum(-1, keepdim=True)


@wrong("check_sink_weights", r"added to every score, which the softmax ignores")
def sink_added_to_every_score(scores, sinks):
    return torch.softmax(scores + sinks[:, None, None], dim=-1)


@wrong("check_sink_weights", r"L_k \+ 1 columns")
def sink_column_not_dropped(scores, sinks):
    column = sinks[:, None, None].expand(-1, scores.shape[1], 1)
    return torch.softmax(torch.cat([scores, column], dim=-1), dim=-1)


@wrong("check_sink_weights", r"s_h itself")
def sink_logit_in_denominator(scores, sinks):
    e = torch.exp(scores)
    return e / (e.sum(-1, keepdim=True) + sinks.view(-1, 1, 1))


@wrong("check_sink_weights", r"your key m is the expected key m \+ 1")
def sink_first_key_dropped(scores, sinks):
    column = sinks[:, None, None].expand(-1, scores.shape[1], 1)
    return torch.softmax(torch.cat([scores, column], dim=-1), dim=-1)[..., 1:]


@wrong("check_sink_weights", r"dropped a key and kept the sink")
def sink_first_last_dropped(scores, sinks):
    column = sinks[:, None, None].expand(-1, scores.shape[1], 1)
    return torch.softmax(torch.cat([column, scores], dim=-1), dim=-1)[..., :-1]


@wrong("check_sink_weights", r"exp\(-s_h\): the sink logit's sign is flipped")
def sink_negated(scores, sinks):
    e = torch.exp(scores)
    return e / (e.sum(-1, keepdim=True) + torch.exp(-sinks)[:, None, None])


@wrong("check_sink_weights", r"subtracted m from the scores .* but not from the sink")
def sink_max_not_subtracted_from_sink(scores, sinks):
    m = scores.amax(-1, keepdim=True)
    e = torch.exp(scores - m)  # stable softmax ...
    return e / (e.sum(-1, keepdim=True) + torch.exp(sinks)[:, None, None])  # ... but not the sink


@wrong("check_sink_weights", r"head 0's sink logit s_0 for every head")
def sink_one_logit_for_every_head(scores, sinks):
    e = torch.exp(scores)
    return e / (e.sum(-1, keepdim=True) + math.exp(sinks[0]))


@wrong("check_sink_weights", r"over the queries \(dim=-2\)")
def sink_softmax_over_queries(scores, sinks):
    column = sinks[:, None, None].expand(-1, scores.shape[1], 1)
    return torch.softmax(torch.cat([scores, column], dim=-1), dim=-2)[..., :-1]


@wrong("check_sink_weights", r"weights on masked keys \(score -inf\) are not 0")
def sink_masked_scores_read_as_zero(scores, sinks):
    scores = torch.nan_to_num(scores, neginf=0.0)  # -inf "is a missing score"
    column = sinks[:, None, None].expand(-1, scores.shape[1], 1)
    return torch.softmax(torch.cat([scores, column], dim=-1), dim=-1)[..., :-1]


@wrong("check_sink_weights", r"rows of head 0 imply sink logits 12, 3, 12 where s_0 = 12")
def sink_heads_repeated_wrongly(scores, sinks):
    heads, length_q, _ = scores.shape
    column = sinks.repeat(length_q).reshape(heads, length_q, 1)  # interleaves the heads
    return torch.softmax(torch.cat([scores, column], dim=-1), dim=-1)[..., :-1]


@wrong("check_sink_weights", r"changes its argument `scores` in place")
def sink_exp_in_place(scores, sinks):
    e = scores.exp_()
    return e / (e.sum(-1, keepdim=True) + sinks.exp()[:, None, None])


@wrong("check_sink_weights", r"query that sees no key .* yours are nan there")
def sink_stable_without_empty_rows(scores, sinks):
    m = scores.amax(-1, keepdim=True)  # -inf on a row with no visible key
    e = torch.exp(scores - m)
    return e / (e.sum(-1, keepdim=True) + torch.exp(sinks[:, None, None] - m))


@right("check_sink_weights")
def sink_denominator_stable(scores, sinks):
    m = torch.maximum(scores.amax(-1, keepdim=True), sinks[:, None, None])
    e = torch.exp(scores - m)
    return e / (e.sum(-1, keepdim=True) + torch.exp(sinks[:, None, None] - m))


@right("check_sink_weights")
def sink_column_first(scores, sinks):
    column = sinks[:, None, None].expand(-1, scores.shape[1], 1)
    return torch.softmax(torch.cat([column, scores], dim=-1), dim=-1)[..., 1:]


@right("check_sink_weights")
def sink_numpy_loops(scores, sinks):
    a = np.asarray(scores, dtype=np.float64)
    out = np.zeros_like(a)
    for h in range(a.shape[0]):
        for i in range(a.shape[1]):
            row = np.exp(a[h, i])  # exp(-inf) = 0
            out[h, i] = row / (row.sum() + np.exp(float(sinks[h])))
    return out


@right("check_sink_weights")
def sink_logsumexp_float32(scores, sinks):
    s = scores.float()
    column = sinks.float()[:, None, None].expand(-1, s.shape[1], 1)
    total = torch.logsumexp(torch.cat([s, column], dim=-1), dim=-1, keepdim=True)
    return torch.exp(s - total)


# --- check_llama4_temperature(positions, floor_scale, attn_scale) -> one value per position ----


def temperature_learner(
    positions,
    floor_scale,
    attn_scale,
    *,
    shift=1,
    rounding=torch.floor,
    log=torch.log1p,
    scale="times",
    one=True,
    sign=1,
):
    t = positions.double() + shift
    steps = rounding(t / floor_scale) if rounding is not None else t / floor_scale
    growth = log(steps)
    growth = growth * attn_scale if scale == "times" else growth / attn_scale
    return (1 if one else 0) + sign * growth


wrong("check_llama4_temperature", r"one position late")(
    variant(temperature_learner, "temperature_counts_from_t", shift=0)
)
wrong("check_llama4_temperature", r"t \+ 2 in place of t \+ 1")(
    variant(temperature_learner, "temperature_steps_one_early", shift=2)
)
wrong("check_llama4_temperature", r"ceil in place of floor")(
    variant(temperature_learner, "temperature_ceil", rounding=torch.ceil)
)
wrong("check_llama4_temperature", r"round in place of floor")(
    variant(temperature_learner, "temperature_round", rounding=torch.round)
)
wrong("check_llama4_temperature", r"grows smoothly")(
    variant(temperature_learner, "temperature_not_floored", rounding=None)
)
wrong("check_llama4_temperature", r"log2\(1 \+ x\)")(
    variant(temperature_learner, "temperature_log2", log=lambda x: torch.log2(1 + x))
)
wrong("check_llama4_temperature", r"log10\(1 \+ x\)")(
    variant(temperature_learner, "temperature_log10", log=lambda x: torch.log10(1 + x))
)
wrong("check_llama4_temperature", r"divided by attn_scale")(
    variant(temperature_learner, "temperature_divided_by_attn_scale", scale="over")
)
wrong("check_llama4_temperature", r"no 1 \+ in front")(
    variant(temperature_learner, "temperature_without_one", one=False)
)
wrong("check_llama4_temperature", r"1 - attn_scale \* log1p")(
    variant(temperature_learner, "temperature_sign", sign=-1)
)


@wrong("check_llama4_temperature", r"log\(floor\(\.\.\.\)\), not log1p")
def temperature_log_without_one(positions, floor_scale, attn_scale):
    steps = torch.floor((positions + 1) / floor_scale).clamp(min=1)  # log(0) avoided
    return 1 + attn_scale * torch.log(steps)


@wrong("check_llama4_temperature", r"floor_scale and attn_scale exchanged")
def temperature_arguments_swapped(positions, attn_scale, floor_scale):
    return 1 + attn_scale * torch.log1p(torch.floor((positions + 1) / floor_scale))


@wrong("check_llama4_temperature", r"plus a constant that changes from case to case")
def temperature_scale_outside(positions, floor_scale, attn_scale):
    return (1 + torch.log1p(torch.floor((positions + 1) / floor_scale))) * attn_scale


@wrong("check_llama4_temperature", r"expected shape \(8,\), got \(\)")
def temperature_of_the_length(positions, floor_scale, attn_scale):
    length = len(positions)  # one temperature for the sequence
    return 1 + attn_scale * math.log1p(math.floor(length / floor_scale))


@wrong("check_llama4_temperature", r"changes its argument `positions` in place")
def temperature_positions_in_place(positions, floor_scale, attn_scale):
    positions += 1  # the number of tokens seen
    return 1 + attn_scale * torch.log1p(torch.floor(positions / floor_scale))


@wrong("check_llama4_temperature", r"positions in bfloat16")
def temperature_bfloat16(positions, floor_scale, attn_scale):
    t = (positions.to(torch.bfloat16) + 1).double()  # the model's dtype
    return 1 + attn_scale * torch.log1p(torch.floor(t / floor_scale))


@wrong("check_llama4_temperature", r"no floor, and log\(max\(x, 1\)\)")
def temperature_ratio_clamped(positions, floor_scale, attn_scale):
    ratio = ((positions + 1) / floor_scale).clamp(min=1)  # exactly 1 before the first step
    return 1 + attn_scale * torch.log(ratio)


@right("check_llama4_temperature")
def temperature_python_loop(positions, floor_scale, attn_scale):
    return [1 + attn_scale * math.log(1 + math.floor((t + 1) / floor_scale)) for t in positions]


@right("check_llama4_temperature")
def temperature_numpy_floor_division(positions, floor_scale, attn_scale):
    t = np.asarray(positions)
    return 1.0 + attn_scale * np.log1p((t + 1) // floor_scale)


@right("check_llama4_temperature")
def temperature_float32_where(positions, floor_scale, attn_scale):
    steps = torch.div(positions + 1, floor_scale, rounding_mode="floor").float()
    return torch.where(steps > 0, 1 + attn_scale * torch.log(1 + steps), torch.ones_like(steps))
