"""Notebooks 12 and 15: accuracy by position, NTK-aware frequencies, the size of a KV cache."""

from __future__ import annotations

import math

import numpy as np
import torch

from . import right, variant, wrong

# the words each loop-made answer's hint must contain
WORDS = {
    "accuracy_targets_from_three": r"fewer positions than expected",
    "accuracy_guess_shifted_back": r"shifted by two",
    "accuracy_max_over_sequences": r"no simple relation",
    "accuracy_argmin": r"zero everywhere",
    "ntk_exponent_d_over_d_minus_one": r"another base: 22081.8 where 25198.4",
    "ntk_exponent_two": r"another base: 40000 where 25198.4",
    "ntk_pairs_from_one": r"factor that changes from case to case",
    "ntk_exponent_4k": r"squared",
    "ntk_base_hard_coded": r"argument base",
    "ntk_and_interpolation": r"factor that changes from case to case \(0.5, 0.25, 0.125, 0.3333\)",
    "ntk_exponent_half": r"another base: 14142.1 where 25198.4",
    "kv_no_d_head": r"no d_head factor",
    "kv_no_tokens": r"no num_tokens factor",
    "kv_no_bytes": r"times 1/8",
    "kv_three_tensors": r"times 1.5",
    "kv_in_kib": r"KiB",
    "kv_in_mb": r"MB",
}


# --- check_accuracy_by_position(logits (num, L, vocab), tokens (num, L)) -> (L - 2,) -----------


def accuracy_learner(
    logits, tokens, *, guess=(1, -1), target=(2, None), dim=0, reduce="mean", pick=None
):
    g0, g1 = guess
    t0, t1 = target
    scores = logits[:, g0:g1]
    predicted = scores.argmax(dim=-1) if pick is None else pick(scores)
    hits = (predicted == tokens[:, t0:t1]).double()
    if reduce == "max":
        return hits.max(dim=dim).values
    return hits.sum(dim=dim) if reduce == "sum" else hits.mean(dim=dim)


for name, knobs, _words in [
    (
        "accuracy_targets_from_three",
        {"guess": (2, -1), "target": (3, None)},
        r"fewer positions than expected",
    ),
    ("accuracy_guess_shifted_back", {"guess": (0, -2), "target": (2, None)}, r"shifted by two"),
    ("accuracy_max_over_sequences", {"reduce": "max"}, r"no simple relation"),
    ("accuracy_argmin", {"pick": lambda s: s.argmin(dim=-1)}, r"zero everywhere"),
]:
    wrong("check_accuracy_by_position", WORDS[name])(variant(accuracy_learner, name, **knobs))


@wrong("check_accuracy_by_position", r"expected shape \(4,\), got \(\)")
def accuracy_last_position_only(logits, tokens):
    return (logits[:, -2].argmax(-1) == tokens[:, -1]).double().mean()


@wrong("check_accuracy_by_position", r"times 100")
def accuracy_percent(logits, tokens):
    return 100 * accuracy_learner(logits, tokens)


@wrong("check_accuracy_by_position", r"one minus the expected ones")
def accuracy_error_rate(logits, tokens):
    return 1 - accuracy_learner(logits, tokens)


@wrong("check_accuracy_by_position", r"reverse order along the positions")
def accuracy_reversed_positions(logits, tokens):
    return accuracy_learner(logits, tokens).flip(0)


@wrong("check_accuracy_by_position", r"your position m is the expected position m - 1")
def accuracy_all_positions(logits, tokens):
    return (
        accuracy_learner(logits, tokens, guess=(0, -1), target=(1, None))[1:] * 0
        + accuracy_learner(logits, tokens, guess=(0, -1), target=(1, None))[:-1]
    )


@wrong("check_accuracy_by_position", r"no simple relation")
def accuracy_softmax_threshold(logits, tokens):
    probs = torch.softmax(logits[:, 1:-1], -1).gather(-1, tokens[:, 2:, None])[..., 0]
    return (probs > 0.5).double().mean(0)


@right("check_accuracy_by_position")
def accuracy_loops(logits, tokens):
    num, length, _ = logits.shape
    out = []
    for t in range(2, length):
        out.append(sum(int(logits[n, t - 1].argmax() == tokens[n, t]) for n in range(num)) / num)
    return out


@right("check_accuracy_by_position")
def accuracy_numpy(logits, tokens):
    guess = np.argmax(logits.numpy()[:, 1:-1], axis=-1)
    return (guess == tokens.numpy()[:, 2:]).mean(axis=0)


@right("check_accuracy_by_position")
def accuracy_float32(logits, tokens):
    return (logits[:, 1:-1].argmax(-1) == tokens[:, 2:]).float().mean(0)


# --- check_ntk_frequencies(d, factor, base) -> (d/2,) ------------------------------------------


def ntk_learner(
    d, factor, base, *, power=None, pair_scale=2.0, start=0, hard_base=None, divide=False
):
    b = hard_base or base
    p = d / (d - 2) if power is None else power(d)
    new_base = b * factor**p
    k = torch.arange(start, start + d // 2, dtype=torch.float64)
    omega = new_base ** (-pair_scale * k / d)
    return omega / factor if divide else omega


for name, knobs in [
    ("ntk_exponent_d_over_d_minus_one", {"power": lambda d: d / (d - 1)}),
    ("ntk_exponent_two", {"power": lambda d: 2.0}),
    ("ntk_pairs_from_one", {"start": 1}),
    ("ntk_exponent_4k", {"pair_scale": 4.0}),
    ("ntk_base_hard_coded", {"hard_base": 10000.0}),
    ("ntk_and_interpolation", {"divide": True}),
    ("ntk_exponent_half", {"power": lambda d: 0.5}),
]:
    wrong("check_ntk_frequencies", WORDS[name])(variant(ntk_learner, name, **knobs))


@wrong("check_ntk_frequencies", r"another base: 1e\+08 where 25198.4")
def ntk_factor_on_frequencies(d, factor, base):
    k = torch.arange(d // 2, dtype=torch.float64)
    return (base ** (-2 * k / d)) ** factor  # the factor as a power of every frequency


@wrong("check_ntk_frequencies", r"2 pi divided by the expected ones")
def ntk_wavelengths(d, factor, base):
    return 2 * math.pi / ntk_learner(d, factor, base)


@wrong("check_ntk_frequencies", r"reverse order along the pairs")
def ntk_reversed(d, factor, base):
    return ntk_learner(d, factor, base).flip(0)


@right("check_ntk_frequencies")
def ntk_loop(d, factor, base):
    b = base * factor ** (d / (d - 2))
    return [1 / b ** (2 * k / d) for k in range(d // 2)]


@right("check_ntk_frequencies")
def ntk_logspace(d, factor, base):
    b = base * factor ** (d / (d - 2))
    return np.logspace(0, -(d - 2) / d, d // 2, base=b)


@right("check_ntk_frequencies")
def ntk_float32(d, factor, base):
    b = np.float32(base) * np.float32(factor) ** np.float32(d / (d - 2))
    return b ** (-np.arange(0, d, 2, dtype=np.float32) / np.float32(d))


# --- check_kv_cache_bytes(num_layers, num_heads, d_head, num_tokens, bytes_per_value) -----------


def kv_learner(
    layers, heads, d_head, tokens, nbytes, *, kv=2, use=("layers", "heads", "d", "t", "b"), extra=1
):
    values = {"layers": layers, "heads": heads, "d": d_head, "t": tokens, "b": nbytes}
    total = kv * extra
    for name in use:
        total *= values[name]
    return total


for name, knobs in [
    ("kv_no_d_head", {"use": ("layers", "heads", "t", "b")}),
    ("kv_no_tokens", {"use": ("layers", "heads", "d", "b")}),
    ("kv_no_bytes", {"use": ("layers", "heads", "d", "t")}),
    ("kv_three_tensors", {"kv": 3}),
    ("kv_in_kib", {"extra": 1 / 1024}),
    ("kv_in_mb", {"extra": 1e-6}),
]:
    wrong("check_kv_cache_bytes", WORDS[name])(variant(kv_learner, name, **knobs))


@wrong("check_kv_cache_bytes", r"no simple relation")
def kv_heads_times_d_model(layers, heads, d_head, tokens, nbytes):
    return 2 * layers * heads * (heads * d_head) * tokens * nbytes  # d_model per head


@wrong("check_kv_cache_bytes", r"no simple relation")
def kv_sum_not_product(layers, heads, d_head, tokens, nbytes):
    return 2 * (layers + heads + d_head + tokens) * nbytes


@wrong("check_kv_cache_bytes", r"num_tokens \+ 1")
def kv_tokens_plus_one(layers, heads, d_head, tokens, nbytes):
    return 2 * layers * heads * d_head * (tokens + 1) * nbytes  # the next token counted too


@wrong("check_kv_cache_bytes", r"times 1/8")
def kv_bits_per_value(layers, heads, d_head, tokens, nbytes):
    return 2 * layers * heads * d_head * tokens * nbytes / 8


@right("check_kv_cache_bytes")
def kv_numpy_prod(layers, heads, d_head, tokens, nbytes):
    return int(np.prod([2, layers, heads, d_head, tokens, nbytes], dtype=np.int64))


@right("check_kv_cache_bytes")
def kv_math_prod(layers, heads, d_head, tokens, nbytes):
    return math.prod((2, layers, heads, d_head, tokens, nbytes))


@right("check_kv_cache_bytes")
def kv_tensor_nbytes(layers, heads, d_head, tokens, nbytes):
    per_layer = 2 * heads * tokens * d_head
    return float(layers * per_layer * nbytes)
