"""Notebook 11: relative offsets, rotary embeddings, ALiBi slopes.

The wrong answers of ``tests/test_exercises_modern_hints.py`` (written as learners write them)
are registered here too, with a few more slips and right answers written another way.
"""

from __future__ import annotations

import math

import numpy as np
import torch

from tests.test_exercises_modern_hints import ALIBI, RELATIVE, ROTARY

from . import right, wrong

for checker, rows in [
    ("check_rotary", ROTARY),
    ("check_alibi_slopes", ALIBI),
    ("check_relative_positions", RELATIVE),
]:
    for answer, fits, _never in rows:
        wrong(checker, fits)(answer)


# --- check_rotary(x (..., L, d) float64, positions (L,) long) -------------------------------


def _rotate(x, positions, omega, sign=1.0, unit=1.0):
    angles = sign * unit * positions.double()[:, None] * omega
    out = x.clone()
    a, b = x[..., 0::2], x[..., 1::2]
    out[..., 0::2] = a * angles.cos() - b * angles.sin()
    out[..., 1::2] = a * angles.sin() + b * angles.cos()
    return out


def _omega(d, scale=2.0, start=0):
    k = torch.arange(start, start + d // 2, dtype=torch.float64)
    return 10000.0 ** (-scale * k / d)


@wrong("check_rotary", r"in degrees")
def rotary_degrees(x, positions):
    return _rotate(x, positions, _omega(x.shape[-1]), unit=180 / math.pi)


@wrong("check_rotary", r"negated: you rotate the other way|other way")
def rotary_minus_sin_on_the_second(x, positions):
    return _rotate(x, positions, _omega(x.shape[-1]), sign=-1.0)


@wrong("check_rotary", r"base\*\*\(-2\(k\+1\)/r\)")
def rotary_pairs_from_one(x, positions):
    return _rotate(x, positions, _omega(x.shape[-1], start=1))


@right("check_rotary")
def rotary_complex(x, positions):
    z = torch.view_as_complex(x.reshape(*x.shape[:-1], -1, 2).contiguous())
    angles = positions.double()[:, None] * _omega(x.shape[-1])
    z = z * torch.exp(1j * angles)
    return torch.view_as_real(z).reshape(x.shape)


@right("check_rotary")
def rotary_numpy(x, positions):
    x = x.numpy()
    d = x.shape[-1]
    theta = positions.numpy()[:, None] * 10000.0 ** (-np.arange(0, d, 2) / d)
    out = np.empty_like(x)
    out[..., 0::2] = x[..., 0::2] * np.cos(theta) - x[..., 1::2] * np.sin(theta)
    out[..., 1::2] = x[..., 0::2] * np.sin(theta) + x[..., 1::2] * np.cos(theta)
    return out


@right("check_rotary")
def rotary_rotation_matrices(x, positions):
    d = x.shape[-1]
    out = torch.empty_like(x)
    for row, t in enumerate(positions.tolist()):
        for k in range(d // 2):
            w = t * 10000.0 ** (-2 * k / d)
            rot = torch.tensor([[math.cos(w), -math.sin(w)], [math.sin(w), math.cos(w)]])
            out[..., row, 2 * k : 2 * k + 2] = x[..., row, 2 * k : 2 * k + 2] @ rot.T.double()
    return out


# --- check_alibi_slopes(num_heads) -------------------------------------------------------------


def _geometric(n):
    return [2 ** (-8 / n * (h + 1)) for h in range(n)]


@wrong("check_alibi_slopes", r"the first slope is 2\*\*\(-8/8\)")
def alibi_powers_of_two_up(num_heads):
    return [2 ** (8 / num_heads * (h + 1)) for h in range(num_heads)]  # sign of the exponent


@wrong(
    "check_alibi_slopes",
    r"on 4 of the 7 failing cases .* the first slope is 2\*\*\(-8/num_heads\), not 1",
)
def alibi_exponent_from_zero(num_heads):
    return [2 ** (-8 / num_heads * h) for h in range(num_heads)]  # starts at 1


@right("check_alibi_slopes")
def alibi_recursive(num_heads):
    if math.log2(num_heads).is_integer():
        return _geometric(num_heads)
    p = 2 ** math.floor(math.log2(num_heads))
    return _geometric(p) + alibi_recursive(2 * p)[0::2][: num_heads - p]


@right("check_alibi_slopes")
def alibi_numpy(num_heads):
    p = 1 << (num_heads.bit_length() - 1)
    first = 2.0 ** (-8.0 / p * np.arange(1, p + 1))
    extra = 2.0 ** (-4.0 / p * np.arange(1, 2 * (num_heads - p), 2))
    return np.concatenate([first, extra])


@right("check_alibi_slopes")
def alibi_float32(num_heads):
    return torch.tensor(alibi_recursive(num_heads), dtype=torch.float32)


# --- check_relative_positions(len_q, len_k, max_distance) ------------------------------------


@wrong("check_relative_positions", r"you clip at -0 and \+0")
def relative_clip_to_max_minus_one(len_q, len_k, max_distance):
    j = torch.arange(len_k)[None, :]
    i = torch.arange(len_q)[:, None]
    return (j - i).clamp(-(max_distance - 1), max_distance - 1) if max_distance else j * 0 + 0 * i


@right("check_relative_positions")
def relative_loops(len_q, len_k, max_distance):
    return [
        [max(-max_distance, min(max_distance, j - i)) for j in range(len_k)] for i in range(len_q)
    ]


@right("check_relative_positions")
def relative_numpy_clip(len_q, len_k, max_distance):
    return np.clip(
        np.subtract.outer(np.arange(len_k), np.arange(len_q)).T, -max_distance, max_distance
    )


@wrong("check_relative_positions", r"returned float32 values, expected integers: .*index")
def relative_float(len_q, len_k, max_distance):
    offsets = (
        torch.arange(len_k, dtype=torch.float32) - torch.arange(len_q, dtype=torch.float32)[:, None]
    )
    return torch.clamp(offsets, -max_distance, max_distance)  # the right values, as floats


@right("check_relative_positions")
def relative_float_then_long(len_q, len_k, max_distance):
    offsets = (
        torch.arange(len_k, dtype=torch.float32) - torch.arange(len_q, dtype=torch.float32)[:, None]
    )
    return torch.clamp(offsets, -max_distance, max_distance).long()
