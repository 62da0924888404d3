"""Checkers for the exercises of notebook 15 (long context): NTK-aware rotary frequencies and
the size of a key/value cache."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..encodings import rotary_frequencies, scaled_rotary_frequencies
from ._core import Mistake, cases_from, run_checker
from ._diagnose import Diagnosis, base_view, knob_view, wavelength_view

__all__ = ["check_ntk_frequencies", "check_kv_cache_bytes"]


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


def _ntk_base_fixed(d: int, factor: float, base: float) -> torch.Tensor:
    return _ntk_frequencies(d, factor, 10000.0)


def check_ntk_frequencies(fn: Callable[[int, float, float], object]) -> bool:
    """Check ``fn(d, factor, base)`` -> NTK-aware frequencies ``(base * factor**(d/(d-2)))**(-2k/d)``
    (:func:`~helpers.encodings.scaled_rotary_frequencies` with ``method="ntk"``).

    The exercise of notebook 15.
    """
    cases = cases_from(
        _ntk_frequencies,
        _NTK_ARGS,
        lambda d, factor, base: f"d={d}, factor={factor}, base={base:g}",
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
            _ntk_base_fixed,
            "use the argument base: one case has base 500, not 10000.",
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
        diagnosis=Diagnosis(axes=("pair",), views=(base_view(), wavelength_view())),
    )


# --- key/value cache size (notebook 15) -----------------------------------------------------------

# num_layers, num_heads, 2 and bytes_per_value all differ within each case, and bytes_per_value
# is never 2 or 4, so that each mistake (a factor dropped, 2 bytes hard-coded) gives its own
# number; LLaMA-2-7B is left out: it is the next exercise's answer
_KV_CACHE_ARGS = [
    (3, 5, 16, 100, 1),
    (5, 6, 8, 7, 8),
    (12, 8, 64, 1024, 1),
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


def _kv_cache_no_heads(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 2 * num_layers * d_head * num_tokens * bytes_per_value


def _kv_cache_two_bytes(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 2 * num_layers * num_heads * d_head * num_tokens * 2


def _kv_cache_bits(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 8 * _kv_cache_bytes(num_layers, num_heads, d_head, num_tokens, bytes_per_value)


def _kv_model(args, kv=2, layers=True, heads=True, d_head=True, tokens=0, value=None, unit=1):
    num_layers, num_heads, d, num_tokens, bytes_per_value = args
    total = kv * (num_layers if layers else 1) * (num_heads if heads else 1) * (d if d_head else 1)
    total *= num_tokens + tokens if tokens >= 0 else 1
    return total * (bytes_per_value if value is None else value(bytes_per_value)) / unit


_KV_KNOBS = {
    "kv": [(1, "keys only (no factor 2 for the values)"), (3, "three tensors")],
    "layers": [(False, "one layer only")],
    "heads": [(False, "one head only")],
    "d_head": [(False, "no d_head factor")],
    "tokens": [(-1, "no num_tokens factor"), (1, "num_tokens + 1 tokens")],
    "value": [
        (lambda b: 1, "one byte a value (no bytes_per_value factor)"),
        (lambda b: 2, "2 bytes a value whatever bytes_per_value says"),
        (lambda b: 8 * b, "bits (times 8), not bytes"),
        (lambda b: b / 8, "bytes_per_value / 8"),
    ],
    "unit": [(1024, "KiB (divided by 1024)"), (2**20, "MiB"), (1e3, "kB"), (1e6, "MB")],
}


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
            _kv_cache_no_heads,
            "every head caches its own keys and values: multiply by num_heads.",
        ),
        Mistake(
            _kv_cache_two_bytes,
            "use the argument bytes_per_value, not a fixed 2 bytes (float16): the cases vary it.",
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
        diagnosis=Diagnosis(views=(knob_view(_kv_model, _KV_KNOBS),)),
    )
