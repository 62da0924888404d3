"""Notebook 16: partial rotation (GPT-NeoX), M-RoPE's angles and Qwen2-VL's position ids."""

from __future__ import annotations

import math

import numpy as np
import torch

from . import right, variant, wrong

# --- check_partial_rotary(x (L, d) float64, positions list, rotary_dim, base) -----------------


def partial_learner(
    x,
    positions,
    rotary_dim,
    base,
    *,
    exponent=None,
    sign=1.0,
    degrees=False,
    hard_base=None,
    swap=True,
    in_place=False,
    shift=0,
):
    x = x.clone()
    half = rotary_dim // 2
    t = torch.tensor(positions, dtype=torch.float64)[:, None] + shift
    k = torch.arange(half, dtype=torch.float64)
    power = -2 * k / rotary_dim if exponent is None else exponent(k, rotary_dim)
    angles = sign * t * (hard_base or base) ** power
    if degrees:
        angles = angles * 180 / math.pi
    cos, sin = angles.cos(), angles.sin()
    a, b = x[:, :half], x[:, half:rotary_dim]
    if not swap:
        x[:, :rotary_dim] = x[:, :rotary_dim] * torch.cat([cos, cos], -1) + x[
            :, :rotary_dim
        ] * torch.cat([sin, sin], -1)
        return x
    if in_place:
        a.copy_(a * cos - b * sin)  # b below already sees the new a
        b.copy_(a * sin + b * cos)
        return x
    first, second = a * cos - b * sin, a * sin + b * cos
    x[:, :half], x[:, half:rotary_dim] = first, second
    return x


for name, knobs, words in [
    ("partial_exponent_k_over_r", {"exponent": lambda k, r: -k / r}, r"base\*\*\(-k/r\)"),
    (
        "partial_exponent_2k_over_half",
        {"exponent": lambda k, r: -2 * k / (r / 2)},
        r"-2k/\(r/2\)",
    ),
    (
        "partial_exponent_k_plus_one",
        {"exponent": lambda k, r: -2 * (k + 1) / r},
        r"base\*\*\(-2\(k\+1\)/r\)",
    ),
    ("partial_positive_exponent", {"exponent": lambda k, r: 2 * k / r}, r"base\*\*\(\+2k/r\)"),
    ("partial_turns_backwards", {"sign": -1.0}, r"negated: you rotate the other way"),
    ("partial_degrees", {"degrees": True}, r"in degrees"),
    ("partial_base_hard_coded", {"hard_base": 10000.0}, r"base 10000, not the base argument"),
    ("partial_partner_not_swapped", {"swap": False}, r"none of your pairs turns"),
    (
        "partial_in_place_update",
        {"in_place": True},
        r"features 0-1 and 4-11 match, features 2-3 differ",
    ),
    ("partial_positions_from_one", {"shift": 1}, r"position t \+ 1"),
]:
    wrong("check_partial_rotary", words)(variant(partial_learner, name, **knobs))


@wrong("check_partial_rotary", r"features 4-11 differ; where they differ, yours are 0")
def partial_rotates_pairs_across_the_head_only_half(x, positions, rotary_dim, base):
    d = x.shape[-1]
    out = x.clone()
    out[:, :rotary_dim] = partial_learner(x[:, :rotary_dim], positions, rotary_dim, base)
    out[:, rotary_dim:] = 0  # the pass-through part dropped
    return out[:, :d]


@right("check_partial_rotary")
def partial_complex_numbers(x, positions, rotary_dim, base):
    half = rotary_dim // 2
    z = torch.complex(x[:, :half], x[:, half:rotary_dim])
    t = torch.tensor(positions, dtype=torch.float64)[:, None]
    omega = base ** (-torch.arange(half, dtype=torch.float64) * 2 / rotary_dim)
    z = z * torch.polar(torch.ones_like(t * omega), t * omega)
    return torch.cat([z.real, z.imag, x[:, rotary_dim:]], dim=-1)


@right("check_partial_rotary")
def partial_numpy_loop(x, positions, rotary_dim, base):
    x = x.numpy().copy()
    half = rotary_dim // 2
    for row, t in enumerate(positions):
        for k in range(half):
            theta = t * base ** (-2 * k / rotary_dim)
            a, b = x[row, k], x[row, k + half]
            x[row, k] = a * math.cos(theta) - b * math.sin(theta)
            x[row, k + half] = a * math.sin(theta) + b * math.cos(theta)
    return x


@right("check_partial_rotary")
def partial_float32(x, positions, rotary_dim, base):
    return partial_learner(x.float(), positions, rotary_dim, base)


# --- check_mrope_angles(position_ids (3, L), mrope_section, d_k, base) -> (L, d_k/2) ---------


def mrope_learner(
    ids,
    section,
    d_k,
    base,
    *,
    order=(0, 1, 2),
    exponent=None,
    sign=1.0,
    degrees=False,
    boundary_shift=0,
    hard_base=None,
    transpose=False,
    shift=0,
):
    half = d_k // 2
    axis_of_pair = []
    for axis, count in zip(order, section, strict=True):
        axis_of_pair += [axis] * count
    if boundary_shift:
        axis_of_pair = axis_of_pair[boundary_shift:] + [axis_of_pair[-1]] * boundary_shift
    k = torch.arange(half, dtype=torch.float64)
    power = -2 * k / d_k if exponent is None else exponent(k, d_k)
    omega = (hard_base or base) ** power
    chosen = ids.double()[torch.tensor(axis_of_pair)] + shift  # (half, L)
    angles = sign * (chosen * omega[:, None])
    if degrees:
        angles = angles * 180 / math.pi
    return angles if transpose else angles.T


for name, knobs, words in [
    ("mrope_negative_angles", {"sign": -1.0}, r"opposite sign"),
    ("mrope_degrees", {"degrees": True}, r"180/pi"),
    (
        "mrope_exponent_k_plus_one",
        {"exponent": lambda k, d: -2 * (k + 1) / d},
        r"times a factor that changes from case to case",
    ),
    ("mrope_base_hard_coded", {"hard_base": 10000.0}, r"pair 0 matches, every other pair differs"),
    ("mrope_transposed", {"transpose": True}, r"transposed"),
    (
        "mrope_sections_off_by_one",
        {"boundary_shift": 1},
        r"pairs 0, 2-3 and 5-7 match, pairs 1 and 4 differ",
    ),
    ("mrope_height_width_swapped", {"order": (0, 2, 1)}, r"tokens 0-2, 6, 8-9 and 11 match"),
    ("mrope_ids_plus_one", {"shift": 1}, r"no simple relation"),
    (
        "mrope_exponent_over_half",
        {"exponent": lambda k, d: -2 * k / (d / 2)},
        r"token 0 matches, every other token differs",
    ),
]:
    wrong("check_mrope_angles", words)(variant(mrope_learner, name, **knobs))


@wrong("check_mrope_angles", r"no simple relation")
def mrope_sections_not_cumulated(ids, section, d_k, base):
    # pair k looked up in section[k % 3] order: a learner's misreading of the sections
    axis_of_pair = [min(k // max(section), 2) for k in range(d_k // 2)]
    omega = base ** (-2 * torch.arange(d_k // 2, dtype=torch.float64) / d_k)
    return (ids.double()[torch.tensor(axis_of_pair)] * omega[:, None]).T


@wrong("check_mrope_angles", r"token 0 matches, every other token differs")
def mrope_float_ids_rounded(ids, section, d_k, base):
    angles = mrope_learner(ids, section, d_k, base)
    return torch.round(angles * 100) / 100  # rounded for printing, then returned


@right("check_mrope_angles")
def mrope_numpy(ids, section, d_k, base):
    axes = np.repeat(np.arange(3), section)
    omega = base ** (-np.arange(0, d_k, 2) / d_k)
    return ids.numpy()[axes].T * omega


@right("check_mrope_angles")
def mrope_loop(ids, section, d_k, base):
    bounds = np.cumsum(section)
    out = np.zeros((ids.shape[1], d_k // 2))
    for k in range(d_k // 2):
        axis = int(np.searchsorted(bounds, k, side="right"))
        out[:, k] = ids[axis].numpy() * base ** (-2 * k / d_k)
    return out


@right("check_mrope_angles")
def mrope_float32(ids, section, d_k, base):
    return mrope_learner(ids, section, d_k, base).float()


# --- check_mrope_position_ids(segments) -> (3, L) --------------------------------------------


def ids_learner(
    segments,
    *,
    text_start=0,
    after="max",
    plus_one=0,
    transpose=False,
    time_offset=0,
    row_major_width=False,
):
    cols, start = [], text_start
    for kind, size in segments:
        if kind == "text":
            for _ in range(size):
                cols.append([start, start, start])
                start += 1
            continue
        h, w = size
        for r in range(h):
            for c in range(w):
                width = r * w + c if row_major_width else c
                cols.append([start + time_offset, start + r, start + width])
        start += {"max": max(h, w), "h": h, "w": w}[after] + plus_one
    out = torch.tensor(cols, dtype=torch.long)
    return out if transpose else out.T


for name, knobs, words in [
    ("ids_text_from_one", {"text_start": 1}, r"plus 1"),
    ("ids_after_image_plus_one", {"plus_one": 1}, r"tokens 0-7 match, tokens 8-9 differ"),
    ("ids_after_image_height", {"after": "h"}, r"tokens 0-7 match, tokens 8-9 differ"),
    ("ids_after_image_width", {"after": "w"}, r"tokens 0-5 match, token 6 differs"),
    ("ids_transposed", {"transpose": True}, r"transposed"),
    ("ids_image_time_plus_one", {"time_offset": 1}, r"tokens 0-1 and 8-9 match, tokens 2-7 differ"),
    (
        "ids_width_counts_patches",
        {"row_major_width": True},
        r"tokens 0-4 and 8-9 match, tokens 5-7 differ",
    ),
]:
    wrong("check_mrope_position_ids", words)(variant(ids_learner, name, **knobs))


@wrong("check_mrope_position_ids", r"where they differ, yours are 0")
def ids_text_only_in_time_row(segments):
    out = ids_learner(segments)
    is_text = (out[0] == out[1]) & (out[1] == out[2])
    out[1:, is_text] = 0  # the text tokens' height and width left at 0
    return out


@wrong("check_mrope_position_ids", r"fewer tokens than expected")
def ids_image_counted_as_one_token(segments):
    cols, start = [], 0
    for kind, size in segments:
        n = size if kind == "text" else 1
        for _ in range(n):
            cols.append([start] * 3)
            start += 1
    return torch.tensor(cols).T


@wrong("check_mrope_position_ids", r"tokens 0-1 match, tokens 2-9 differ")
def ids_all_from_zero_per_segment(segments):
    parts = []
    for kind, size in segments:
        if kind == "text":
            parts.append(torch.arange(size).expand(3, size))
        else:
            h, w = size
            r, c = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
            parts.append(
                torch.stack([torch.zeros(h * w, dtype=torch.long), r.flatten(), c.flatten()])
            )
    return torch.cat(parts, dim=1)


@right("check_mrope_position_ids")
def ids_numpy(segments):
    rows, start = [[], [], []], 0
    for kind, size in segments:
        if kind == "text":
            for i in range(3):
                rows[i].extend(range(start, start + size))
            start += size
        else:
            h, w = size
            r, c = np.divmod(np.arange(h * w), w)
            rows[0].extend([start] * (h * w))
            rows[1].extend((start + r).tolist())
            rows[2].extend((start + c).tolist())
            start += max(h, w)
    return np.array(rows)


@right("check_mrope_position_ids")
def ids_loop(segments):
    return ids_learner(segments)


@right("check_mrope_position_ids")
def ids_list_of_lists(segments):
    return ids_learner(segments).tolist()
