"""Checkers for the modern-encoding exercises: relative offsets, RoPE and ALiBi (notebook 11),
next-token accuracy by position (notebook 12), NTK-aware rotary frequencies and the size of a
key/value cache (notebook 15)."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..encodings import (
    alibi_slopes,
    apply_rotary,
    relative_positions,
    rotary_frequencies,
    scaled_rotary_frequencies,
)
from ._core import Case, Mistake, cases_from, run_checker

__all__ = [
    "check_relative_positions",
    "check_rotary",
    "check_alibi_slopes",
    "check_accuracy_by_position",
    "check_ntk_frequencies",
    "check_kv_cache_bytes",
]


# --- relative offsets (Shaw et al. 2018) -------------------------------------------------------

_RELATIVE_ARGS = [(4, 4, 2), (3, 6, 1), (5, 3, 10), (6, 6, 0), (1, 5, 3)]


def _offsets_i_minus_j(len_q: int, len_k: int, max_distance: int) -> torch.Tensor:
    return -relative_positions(len_q, len_k, max_distance)


def _offsets_not_clipped(len_q: int, len_k: int, max_distance: int) -> torch.Tensor:
    return torch.arange(len_k)[None, :] - torch.arange(len_q)[:, None]


def _offsets_shifted_to_indices(len_q: int, len_k: int, max_distance: int) -> torch.Tensor:
    return relative_positions(len_q, len_k, max_distance) + max_distance


def check_relative_positions(fn: Callable[[int, int, int], object]) -> bool:
    """Check ``fn(len_q, len_k, max_distance)`` -> ``clip(j - i, -max_distance, max_distance)``.

    The exercise of notebook 11.
    """
    cases = cases_from(
        relative_positions,
        _RELATIVE_ARGS,
        lambda len_q, len_k, clip: f"len_q={len_q}, len_k={len_k}, max_distance={clip}",
    )
    mistakes = [
        Mistake(
            _offsets_i_minus_j,
            "the signs are flipped: the entry for query i and key j is j - i (a key to the "
            "right of the query has a positive offset).",
        ),
        Mistake(
            _offsets_not_clipped,
            "the offsets are not clipped: limit them to [-max_distance, max_distance], e.g. "
            "with .clamp(-max_distance, max_distance).",
        ),
        Mistake(
            _offsets_shifted_to_indices,
            "you returned row indices (offset + max_distance); the table should hold the "
            "signed offsets themselves, 0 on the diagonal.",
        ),
    ]
    return run_checker(
        "check_relative_positions",
        fn,
        cases,
        mistakes,
        generic_hint="write out the 4 x 4 table for max_distance = 2 by hand.",
    )


# --- rotary embeddings ---------------------------------------------------------------------------


def _rotary_cases() -> list[Case]:
    generator = torch.Generator().manual_seed(11)
    shapes_positions = [
        ((5, 4), torch.arange(5)),
        ((3, 8), torch.tensor([0, 7, 100])),
        ((2, 6, 16), torch.arange(6)),
        ((4, 64), torch.tensor([1, 2, 30, 500])),
    ]
    cases = []
    for shape, positions in shapes_positions:
        x = torch.randn(*shape, generator=generator, dtype=torch.float64)
        cases.append(
            Case(
                (x, positions),
                apply_rotary(x, positions),
                f"x of shape {shape}, positions {positions.tolist()}",
            )
        )
    return cases


def _rotary_with_frequencies(x: torch.Tensor, positions: torch.Tensor, omega: torch.Tensor):
    """Interleaved rotation with the given frequencies, for the wrong-frequency mistakes."""
    angles = positions.to(torch.float64)[:, None] * omega  # (seq_len, d/2)
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def _half_layout(x, positions):
    return apply_rotary(x, positions, layout="half")


def _half_angles_on_interleaved_pairs(x, positions):
    """The layout mix-up of real code: angles laid out in halves, pairs rotated interleaved."""
    d = x.shape[-1]
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = 10000.0 ** (-2.0 * k / d)
    angles = positions.to(torch.float64)[:, None] * torch.cat([omega, omega])  # (seq_len, d)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * angles[:, 0::2].cos() - odd * angles[:, 0::2].sin()
    out[..., 1::2] = even * angles[:, 1::2].sin() + odd * angles[:, 1::2].cos()
    return out


def _dimension_index_exponent(x, positions):
    d = x.shape[-1]
    i = torch.arange(0, d, 2, dtype=torch.float64)  # 2k used where k belongs
    return _rotary_with_frequencies(x, positions, 10000.0 ** (-2.0 * i / d))


def _missing_factor_two(x, positions):
    d = x.shape[-1]
    k = torch.arange(d // 2, dtype=torch.float64)
    return _rotary_with_frequencies(x, positions, 10000.0 ** (-k / d))


def _opposite_direction(x, positions):
    return apply_rotary(x, -positions)


def _positions_from_one(x, positions):
    return apply_rotary(x, positions + 1)


def check_rotary(fn: Callable[[torch.Tensor, torch.Tensor], object]) -> bool:
    """Check ``fn(x, positions)`` against :func:`helpers.encodings.apply_rotary` (interleaved).

    ``x`` is a float64 tensor ``(..., seq_len, d)``, ``positions`` a long tensor ``(seq_len,)``.

    The exercise of notebook 11; used again in notebook 13.
    """
    mistakes = [
        Mistake(
            _half_layout,
            "you paired dimension k with k + d/2 (the 'rotate_half' layout); this exercise "
            "uses the paper's interleaved pairs (2k, 2k+1).",
        ),
        Mistake(
            _half_angles_on_interleaved_pairs,
            "your angle table is laid out in halves, [omega_0 .. omega_{d/2-1}, omega_0 .. "
            "omega_{d/2-1}] (the 'rotate_half' convention), but you rotate interleaved pairs "
            "(2k, 2k+1), so the two elements of a pair turn by different angles. Give both "
            "elements of pair k the same angle t * omega_k (repeat_interleave, not cat).",
        ),
        Mistake(
            _dimension_index_exponent,
            "the exponent uses the dimension index 2k where the pair index k belongs: "
            "omega_k = base**(-2k / d) for k = 0 .. d/2 - 1.",
        ),
        Mistake(
            _missing_factor_two,
            "the exponent is k / d; it should be 2k / d, so that the slowest pair turns "
            "about base times slower than the fastest.",
        ),
        Mistake(
            _opposite_direction,
            "you rotate the other way: the first element of a pair becomes "
            "x_2k cos - x_2k+1 sin, the second x_2k sin + x_2k+1 cos.",
        ),
        Mistake(
            _positions_from_one,
            "the angles are one position too far: use the positions as given (the first "
            "row of the default positions is t = 0, where nothing rotates).",
        ),
    ]
    return run_checker(
        "check_rotary",
        fn,
        _rotary_cases(),
        mistakes,
        generic_hint="position 0 must leave x unchanged, and every pair must keep its length.",
    )


# --- ALiBi slopes --------------------------------------------------------------------------------

_ALIBI_HEADS = [8, 1, 4, 16, 12, 6, 24]


def _power_rule_everywhere(num_heads: int) -> torch.Tensor:
    h = torch.arange(1, num_heads + 1, dtype=torch.float64)
    return 2.0 ** (-8.0 / num_heads * h)


def _starting_at_one(num_heads: int) -> torch.Tensor:
    return torch.cat((torch.ones(1, dtype=torch.float64), alibi_slopes(num_heads)[:-1].double()))


def _reversed_slopes(num_heads: int) -> torch.Tensor:
    return alibi_slopes(num_heads).flip(0)


def _negative_slopes(num_heads: int) -> torch.Tensor:
    return -alibi_slopes(num_heads)


def check_alibi_slopes(fn: Callable[[int], object]) -> bool:
    """Check ``fn(num_heads)`` against the ALiBi paper's slopes (:func:`alibi_slopes`).

    The exercise of notebook 11.
    """
    cases = cases_from(alibi_slopes, [(n,) for n in _ALIBI_HEADS], lambda n: f"num_heads={n}")
    mistakes = [
        Mistake(
            _power_rule_everywhere,
            "the power-of-two formula is right for 1, 2, 4, 8, 16 heads, but the paper "
            "treats other head counts differently: take the slopes of the largest power of "
            "two p below num_heads, then every other slope of 2p heads for the rest.",
        ),
        Mistake(
            _starting_at_one,
            "the first slope is 2**(-8/num_heads), not 1: the sequence starts at the ratio.",
        ),
        Mistake(_reversed_slopes, "the slopes should decrease from head 0 to the last head."),
        Mistake(
            _negative_slopes,
            "slopes are positive; the minus sign belongs to the bias -m * (i - j).",
        ),
    ]
    return run_checker(
        "check_alibi_slopes",
        fn,
        cases,
        mistakes,
        generic_hint="for 8 heads the slopes are 1/2, 1/4, ..., 1/256.",
    )


# --- next-token accuracy by position (notebook 12) -----------------------------------------------


def _accuracy_cases() -> list[Case]:
    generator = torch.Generator().manual_seed(12)
    cases = []
    for num, length, vocab in [(5, 6, 5), (16, 12, 16), (3, 40, 7)]:
        tokens = torch.randint(0, vocab, (num, length), generator=generator)
        # A decent "model": logits favour the true next token, with some random noise.
        logits = torch.randn(num, length, vocab, generator=generator, dtype=torch.float64)
        logits[:, :-1] += 1.5 * torch.nn.functional.one_hot(tokens[:, 1:], vocab)
        cases.append(
            Case(
                (logits, tokens),
                _accuracy_by_position(logits, tokens),
                f"logits of shape {(num, length, vocab)}",
            )
        )
    return cases


def _accuracy_by_position(logits: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """Reference: accuracy of predicting ``tokens[:, t]`` from ``logits[:, t - 1]``, t >= 2."""
    predictions = logits[:, 1:-1].argmax(dim=-1)  # guesses for x_2 .. x_{length-1}
    return (predictions == tokens[:, 2:]).double().mean(dim=0)  # (length - 2,)


def _hits(logits: torch.Tensor, tokens: torch.Tensor, guess: slice, target: slice) -> torch.Tensor:
    """(num, positions): does the argmax of ``logits[:, guess]`` equal ``tokens[:, target]``?"""
    return (logits[:, guess].argmax(dim=-1) == tokens[:, target]).double()


# Wrong answers a learner writes, each named by what its output gets wrong. The checker names a
# mistake only when the learner's output equals that mistake's output on the failing case.
def _not_shifted(logits, tokens):  # output at t compared with token t
    return _hits(logits, tokens, slice(2, None), slice(2, None)).mean(dim=0)


def _own_input_token(logits, tokens):  # output at t compared with token t, for t = 1 .. L-2
    return _hits(logits, tokens, slice(1, -1), slice(1, -1)).mean(dim=0)


def _shifted_twice(logits, tokens):  # output at t - 2 compared with token t
    return _hits(logits, tokens, slice(None, -2), slice(2, None)).mean(dim=0)


def _previous_token(logits, tokens):  # output at t + 1 compared with token t
    return _hits(logits, tokens, slice(2, None), slice(1, -1)).mean(dim=0)


def _from_t_one(logits, tokens):  # right alignment, but targets from t = 1
    return _hits(logits, tokens, slice(None, -1), slice(1, None)).mean(dim=0)


def _over_positions(logits, tokens):  # averaged over the positions, one number per sequence
    return _hits(logits, tokens, slice(1, -1), slice(2, None)).mean(dim=1)


def _not_averaged(logits, tokens):  # hits per sequence and position
    return _hits(logits, tokens, slice(1, -1), slice(2, None))


def _summed(logits, tokens):  # counts instead of shares
    return _hits(logits, tokens, slice(1, -1), slice(2, None)).sum(dim=0)


def _probability_of_truth(logits, tokens):  # the probability given to the true token
    probabilities = torch.softmax(logits[:, 1:-1], dim=-1)
    return probabilities.gather(-1, tokens[:, 2:, None]).squeeze(-1).mean(dim=0)


_ALIGNMENT = "the guess for tokens[:, t] sits at logits[:, t - 1]: compare logits[:, 1:-1] "
_ALIGNMENT += "with tokens[:, 2:]."


def check_accuracy_by_position(fn: Callable[[torch.Tensor, torch.Tensor], object]) -> bool:
    """Check ``fn(logits, tokens)`` -> next-token accuracy for targets ``t = 2 .. length - 1``.

    ``logits (num, length, vocab)`` are a causal model's outputs, ``logits[:, t]`` its guess for
    ``tokens[:, t + 1]``; the result has shape ``(length - 2,)``, averaged over sequences.

    The exercise of notebook 12.
    """
    mistakes = [
        Mistake(
            _not_shifted,
            "you compared logits[:, t] with tokens[:, t]: a causal model's output at t is its "
            "guess for the NEXT token, so compare logits[:, t - 1] with tokens[:, t].",
        ),
        Mistake(
            _own_input_token,
            "you compared each output with the token it READ (logits[:, 1:-1] with "
            "tokens[:, 1:-1]); the output at t guesses the NEXT token: " + _ALIGNMENT,
        ),
        Mistake(_shifted_twice, "the predictions are shifted by two: " + _ALIGNMENT),
        Mistake(
            _previous_token,
            "you compared the output at t + 1 with token t, the output after the token "
            "instead of before it: " + _ALIGNMENT,
        ),
        Mistake(
            _from_t_one,
            "the alignment is right, but the targets start at t = 1: the result covers "
            "t = 2 .. length - 1 (drop the first one).",
        ),
        Mistake(
            _over_positions,
            "you averaged over the positions (dim 1), giving one number per sequence: "
            "average over the sequences (dim 0) so each position keeps its accuracy.",
        ),
        Mistake(
            _not_averaged,
            "you returned the hit of every sequence: average over the sequences (dim 0).",
        ),
        Mistake(
            _summed,
            "you counted the hits: divide by the number of sequences (take the mean over "
            "dim 0), so each entry is a share between 0 and 1.",
        ),
        Mistake(
            _probability_of_truth,
            "you averaged the probability of the true token: accuracy counts whether the "
            "argmax (the model's guess) equals the token.",
        ),
    ]
    return run_checker(
        "check_accuracy_by_position",
        fn,
        _accuracy_cases(),
        mistakes,
        generic_hint="for each t = 2 .. length - 1, take the argmax of logits[:, t - 1] over "
        "the vocabulary, compare it with tokens[:, t], and average over the sequences.",
    )


# --- NTK-aware rotary frequencies (notebook 15) ---------------------------------------------------

_NTK_ARGS = [(8, 2.0, 10000.0), (16, 4.0, 10000.0), (64, 8.0, 10000.0), (32, 3.0, 500.0)]


def _ntk_frequencies(d: int, factor: float, base: float) -> torch.Tensor:
    return scaled_rotary_frequencies(d, "ntk", factor, base)[0]


def _ntk_exponent_inverted(d: int, factor: float, base: float) -> torch.Tensor:
    return rotary_frequencies(d, base * factor ** ((d - 2) / d))


def _ntk_as_interpolation(d: int, factor: float, base: float) -> torch.Tensor:
    return rotary_frequencies(d, base) / factor


def _ntk_base_times_factor(d: int, factor: float, base: float) -> torch.Tensor:
    return rotary_frequencies(d, base * factor)


def _ntk_dimension_index(d: int, factor: float, base: float) -> torch.Tensor:
    new_base = base * factor ** (d / (d - 2))
    i = torch.arange(d // 2, dtype=torch.float64)  # the pair index used as a dimension index
    return new_base ** (-i / d)


def check_ntk_frequencies(fn: Callable[[int, float, float], object]) -> bool:
    """Check ``fn(d, factor, base)`` -> NTK-aware frequencies ``(base * factor**(d/(d-2)))**(-2k/d)``
    (:func:`~helpers.encodings.scaled_rotary_frequencies` with ``method="ntk"``).

    The exercise of notebook 15.
    """
    cases = cases_from(
        _ntk_frequencies, _NTK_ARGS, lambda d, factor, base: f"d={d}, factor={factor}"
    )
    mistakes = [
        Mistake(
            _ntk_exponent_inverted,
            "the exponent is d / (d - 2), not (d - 2) / d: it is chosen so that the slowest "
            "pair, k = d/2 - 1, is slowed down by exactly the factor.",
        ),
        Mistake(
            _ntk_as_interpolation,
            "dividing every frequency by the factor is position interpolation; NTK-aware "
            "scaling changes the base, so the fast pairs stay almost as they were.",
        ),
        Mistake(
            _ntk_base_times_factor,
            "multiplying the base by the factor alone slows the slowest pair by less than the "
            "factor: raise the factor to the power d / (d - 2) first.",
        ),
        Mistake(
            _ntk_dimension_index,
            "omega_k uses the pair index k with exponent -2k/d (k = 0 .. d/2 - 1), not -k/d.",
        ),
    ]
    return run_checker(
        "check_ntk_frequencies",
        fn,
        cases,
        mistakes,
        generic_hint="the first frequency is 1 and the last is the unscaled last one / factor.",
    )


# --- key/value cache size (notebook 15) -----------------------------------------------------------

_KV_CACHE_ARGS = [
    (32, 32, 128, 4096, 2),
    (2, 4, 16, 100, 4),
    (12, 12, 64, 1024, 2),
    (3, 1, 8, 7, 1),
]


def _kv_cache_bytes(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    # keys and values (2), each (num_heads, num_tokens, d_head) per layer
    return 2 * num_layers * num_heads * d_head * num_tokens * bytes_per_value


def _kv_cache_keys_only(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return num_layers * num_heads * d_head * num_tokens * bytes_per_value


def _kv_cache_one_layer(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 2 * num_heads * d_head * num_tokens * bytes_per_value


def _kv_cache_bits(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 8 * _kv_cache_bytes(num_layers, num_heads, d_head, num_tokens, bytes_per_value)


def check_kv_cache_bytes(fn: Callable[[int, int, int, int, int], object]) -> bool:
    """Check ``fn(num_layers, num_heads, d_head, num_tokens, bytes_per_value)`` -> the bytes
    of one sequence's key/value cache, ``2 * num_layers * num_heads * d_head * num_tokens *
    bytes_per_value``.

    The exercise of notebook 15.
    """
    cases = cases_from(
        _kv_cache_bytes,
        _KV_CACHE_ARGS,
        "num_layers={}, num_heads={}, d_head={}, num_tokens={}, bytes_per_value={}".format,
    )
    mistakes = [
        Mistake(
            _kv_cache_keys_only,
            "the cache holds keys AND values: two tensors per layer, so a factor 2.",
        ),
        Mistake(
            _kv_cache_one_layer,
            "every layer caches its own keys and values: multiply by num_layers.",
        ),
        Mistake(
            _kv_cache_bits,
            "bytes_per_value is already in bytes: do not multiply by 8.",
        ),
    ]
    return run_checker(
        "check_kv_cache_bytes",
        fn,
        cases,
        mistakes,
        generic_hint="one number per layer, per key or value, per head, per token, per head "
        "dimension, times the bytes of one number.",
    )
