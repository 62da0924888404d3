"""The notebook-11 checkers against wrong answers written as learners write them.

Each wrong answer below was written independently of the checkers' own mistake functions, the
way a learner gets the exercise wrong (positions ignored, divide instead of multiply, batch
dimensions mishandled, an in-place update, failing only at 12 or 16 heads, end-aligned offsets,
...). Each must fail, and the hint must name what is actually wrong with that answer: the
`fits` pattern lists the words a fitting hint contains, `never` those of a hint that would
describe a property the answer already has.
"""

from __future__ import annotations

import math
import re

import numpy as np
import pytest
import torch

from helpers.exercises import check_alibi_slopes, check_relative_positions, check_rotary

# --- rotary: fn(x (..., seq_len, d) float64, positions (seq_len,) long) ----------------------


def _omega(d):
    return 10000.0 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)  # (d/2,)


def rotary_positions_ignored(x, positions):
    t = torch.arange(x.shape[-2], dtype=torch.float64)  # uses 0..seq_len-1, not positions
    angles = t[:, None] * _omega(x.shape[-1])
    out = x.clone()
    out[..., 0::2] = x[..., 0::2] * angles.cos() - x[..., 1::2] * angles.sin()
    out[..., 1::2] = x[..., 0::2] * angles.sin() + x[..., 1::2] * angles.cos()
    return out


def rotary_divides(x, positions):
    d = x.shape[-1]
    div = 10000.0 ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    angles = positions[:, None].double() / (1.0 / div)  # divides by the frequency
    out = x.clone()
    out[..., 0::2] = x[..., 0::2] * angles.cos() - x[..., 1::2] * angles.sin()
    out[..., 1::2] = x[..., 0::2] * angles.sin() + x[..., 1::2] * angles.cos()
    return out


def rotary_batch_dims(x, positions):
    d = x.shape[-1]
    flat = x.reshape(-1, d)  # (batch * seq_len, d)
    batch = flat.shape[0] // positions.shape[0]
    t = positions.repeat_interleave(batch).double()  # meant positions.repeat(batch)
    angles = t[:, None] * _omega(d)
    out = torch.empty_like(flat)
    out[:, 0::2] = flat[:, 0::2] * angles.cos() - flat[:, 1::2] * angles.sin()
    out[:, 1::2] = flat[:, 0::2] * angles.sin() + flat[:, 1::2] * angles.cos()
    return out.reshape(x.shape)


def rotary_in_place(x, positions):
    angles = positions[:, None].double() * _omega(x.shape[-1])
    x[..., 0::2] = x[..., 0::2] * angles.cos() - x[..., 1::2] * angles.sin()
    x[..., 1::2] = x[..., 0::2] * angles.sin() + x[..., 1::2] * angles.cos()  # new even used
    return x


def rotary_concatenated(x, positions):
    angles = positions[:, None].double() * _omega(x.shape[-1])
    even, odd = x[..., 0::2], x[..., 1::2]
    # right rotation, but the results written as [all firsts, all seconds]
    return torch.cat(
        [even * angles.cos() - odd * angles.sin(), even * angles.sin() + odd * angles.cos()], -1
    )


def rotary_sin_cos_swapped(x, positions):
    angles = positions[:, None].double() * _omega(x.shape[-1])
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * angles.sin() - odd * angles.cos()
    out[..., 1::2] = even * angles.cos() + odd * angles.sin()
    return out


def rotary_one_frequency(x, positions):
    angles = positions[:, None].double().expand(-1, x.shape[-1] // 2)  # omega = 1 for all pairs
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * angles.cos() - odd * angles.sin()
    out[..., 1::2] = even * angles.sin() + odd * angles.cos()
    return out


def rotary_frequencies_reversed(x, positions):
    omega = _omega(x.shape[-1]).flip(0)  # slowest pair first
    angles = positions[:, None].double() * omega
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * angles.cos() - odd * angles.sin()
    out[..., 1::2] = even * angles.sin() + odd * angles.cos()
    return out


def rotary_float32(x, positions):
    x32 = x.float()
    angles = positions[:, None].float() * _omega(x.shape[-1]).float()
    out = torch.empty_like(x32)
    out[..., 0::2] = x32[..., 0::2] * angles.cos() - x32[..., 1::2] * angles.sin()
    out[..., 1::2] = x32[..., 0::2] * angles.sin() + x32[..., 1::2] * angles.cos()
    return out.double() * (1 + 1e-4)  # float32 all the way, plus a small scaling slip


ROTARY = [
    (rotary_positions_ignored, r"ignore the positions", r"position 0 must"),
    (rotary_divides, r"base\*\*\(\+2k/r\)", r"position 0 must"),
    (rotary_batch_dims, r"\.\.\.|leading|batch", r"position 0 must"),
    (rotary_in_place, r"keep its length", r"position 0 must"),
    (rotary_concatenated, r"interleav|places|order", r"keep its length"),
    (rotary_sin_cos_swapped, r"position 0", None),
    (rotary_one_frequency, r"same angle", r"position 0 must"),
    (rotary_frequencies_reversed, r"reverse order along the pairs", r"position 0 must"),
    (rotary_float32, r"close|float64|scale", r"position 0 must"),
]


# --- ALiBi slopes: fn(num_heads) -------------------------------------------------------------


def _geometric(n):
    return [2 ** (-8 / n * (h + 1)) for h in range(n)]


def alibi_odd_slopes_of_2p(n):
    if n & (n - 1) == 0:
        return _geometric(n)
    p = 2 ** int(math.log2(n))
    return _geometric(p) + _geometric(2 * p)[1::2][: n - p]  # every other, but from the second


def alibi_truncate_next_power(n):
    p = 1
    while p < n:
        p *= 2
    return _geometric(p)[:n]  # slopes of the next power of two, cut to n


def alibi_repeat_first(n):
    if n & (n - 1) == 0:
        return _geometric(n)
    p = 2 ** int(math.log2(n))
    return _geometric(p) + _geometric(p)[: n - p]  # repeats the first slopes


def alibi_consecutive_of_2p(n):
    if n & (n - 1) == 0:
        return _geometric(n)
    p = 2 ** int(math.log2(n))
    return _geometric(p) + _geometric(2 * p)[: n - p]  # consecutive, not every other


def alibi_ratio_half(n):
    start = 2 ** (-8 / n)
    return [start * 0.5**h for h in range(n)]  # ratio 1/2 whatever n


def alibi_natural_exp(n):
    return [math.exp(-8 / n * (h + 1)) for h in range(n)]  # e instead of 2


def alibi_wrong_at_16(n):
    if n in (1, 2, 4, 8):  # forgot that 16 is a power of two too
        return _geometric(n)
    p = 2 ** int(math.log2(n - 1))  # largest power of two below n
    return _geometric(p) + _geometric(2 * p)[0::2][: n - p]


def alibi_extra_reversed(n):
    if n & (n - 1) == 0:
        return _geometric(n)
    p = 2 ** int(math.log2(n))
    return _geometric(p) + alibi_extra_reversed(2 * p)[0::2][: n - p][::-1]


def alibi_sorted(n):
    if n & (n - 1) == 0:
        return _geometric(n)
    p = 2 ** int(math.log2(n))
    return sorted(_geometric(p) + _geometric(2 * p)[0::2][: n - p], reverse=True)  # interleaved


ALIBI = [
    (alibi_odd_slopes_of_2p, r"starting from the\s+first", r"for 8 heads"),
    (alibi_truncate_next_power, r"first 8 slopes", r"for 8 heads"),
    (alibi_repeat_first, r"repeat", r"for 8 heads"),
    (alibi_consecutive_of_2p, r"every other", r"for 8 heads"),
    (alibi_ratio_half, r"ratio|2\*\*\(-16/", None),
    (alibi_natural_exp, r"powers of 2|2\*\*", None),
    (alibi_wrong_at_16, r"16 is a power of two", r"for 8 heads"),
    (alibi_extra_reversed, r"order", r"for 8 heads"),
    (alibi_sorted, r"order|after", r"for 8 heads"),
]


# --- relative offsets: fn(len_q, len_k, max_distance) ----------------------------------------


def relative_end_aligned(len_q, len_k, max_distance):
    i = torch.arange(len_k - len_q, len_k)[:, None]  # queries are the last len_q positions
    j = torch.arange(len_k)[None, :]
    return (j - i).clamp(-max_distance, max_distance)


def relative_one_sided_clip(len_q, len_k, max_distance):
    i = torch.arange(len_q)[:, None]
    j = torch.arange(len_k)[None, :]
    return (j - i).clamp(max=max_distance)


def relative_absolute(len_q, len_k, max_distance):
    i = torch.arange(len_q)[:, None]
    j = torch.arange(len_k)[None, :]
    return (j - i).abs().clamp(max=max_distance)


def relative_square(len_q, len_k, max_distance):
    t = torch.arange(len_q)
    return (t[None, :] - t[:, None]).clamp(-max_distance, max_distance)  # len_k ignored


def relative_transposed(len_q, len_k, max_distance):
    i = torch.arange(len_q)[None, :]
    j = torch.arange(len_k)[:, None]
    return (j - i).clamp(-max_distance, max_distance)  # keys down the rows


def relative_clip_off_by_one(len_q, len_k, max_distance):
    out = np.zeros((len_q, len_k), dtype=int)
    for i in range(len_q):
        for j in range(len_k):
            out[i, j] = max(-max_distance + 1, min(max_distance - 1, j - i))
    return out


def relative_zero_means_no_clip(len_q, len_k, max_distance):
    offsets = torch.arange(len_k)[None, :] - torch.arange(len_q)[:, None]
    return offsets.clamp(-max_distance, max_distance) if max_distance else offsets


def relative_loop_swapped_indices(len_q, len_k, max_distance):
    out = []
    for i in range(len_q):
        out.append([max(-max_distance, min(max_distance, i - j)) for j in range(len_k)])
    return out


def relative_from_one(len_q, len_k, max_distance):
    i = torch.arange(1, len_q + 1)[:, None]  # queries counted from 1, keys from 0
    j = torch.arange(len_k)[None, :]
    return (j - i).clamp(-max_distance, max_distance)


RELATIVE = [
    (relative_end_aligned, r"end-aligned", r"by hand"),
    (relative_one_sided_clip, r"both|below|-max_distance", r"by hand"),
    (relative_absolute, r"signed|negative", r"by hand"),
    (relative_square, r"shape|len_k", r"by hand"),
    (relative_transposed, r"rows|queries|shape", r"by hand"),
    (relative_clip_off_by_one, r"you clip at", r"by hand"),
    (relative_zero_means_no_clip, r"max_distance = 0|not clipped", None),
    (relative_loop_swapped_indices, r"sign|j - i", None),
    (relative_from_one, r"shifted by -1", r"by hand"),
]


def _run(checker, answer, capsys):
    ok = checker(answer)
    out = capsys.readouterr().out
    return ok, out


def _hint(out: str) -> str:
    return out.split("Hint:", 1)[1] if "Hint:" in out else ""


@pytest.mark.parametrize(
    ("checker", "answer", "fits", "never"),
    [(check_rotary, *row) for row in ROTARY]
    + [(check_alibi_slopes, *row) for row in ALIBI]
    + [(check_relative_positions, *row) for row in RELATIVE],
    ids=lambda v: getattr(v, "__name__", None),
)
def test_a_learners_wrong_answer_gets_a_fitting_hint(checker, answer, fits, never, capsys):
    ok, out = _run(checker, answer, capsys)
    assert ok is False, out
    hint = _hint(out)
    assert re.search(fits, hint), f"{answer.__name__}: hint does not fit:\n{out}"
    if never is not None:
        assert not re.search(never, hint), (
            f"{answer.__name__}: hint names a property it has:\n{out}"
        )


def test_at_least_eight_wrong_answers_per_checker():
    assert min(len(ROTARY), len(ALIBI), len(RELATIVE)) >= 8
