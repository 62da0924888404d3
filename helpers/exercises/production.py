"""Checkers for the exercises of notebook 17 (positions in today's models): Llama 3's rotary rule,
dynamic NTK frequencies, and the positions of a windowed cache with sink tokens."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch

from ..encodings import rotary_frequencies, scaled_rotary_frequencies
from ._core import CaseFailedError, Mistake, as_numpy, cases_from, run_checker
from ._diagnose import Diagnosis, View, _ranges, base_view, wavelength_view

__all__ = ["check_llama3_frequencies", "check_dynamic_ntk_frequencies", "check_window_positions"]


# --- Llama 3's rule (notebook 17) --------------------------------------------------------------

# (d, factor, base, original_max_len, low_freq_factor, high_freq_factor): Llama 3.1's settings,
# Llama 3.2's factor, and small ones where every band holds pairs
_LLAMA3_ARGS = [
    (128, 8.0, 500000.0, 8192, 1.0, 4.0),
    (64, 32.0, 500000.0, 8192, 1.0, 4.0),
    (32, 4.0, 10000.0, 256, 1.0, 4.0),
    (16, 2.0, 100.0, 64, 2.0, 8.0),
]


def _llama3_frequencies(d, factor, base, original_max_len, low, high) -> torch.Tensor:
    omega, _ = scaled_rotary_frequencies(
        d, "llama3", factor, base, original_max_len, low_freq_factor=low, high_freq_factor=high
    )
    return omega


def _llama3_bounds_swapped(d, factor, base, original_max_len, low, high) -> torch.Tensor:
    # the two wavelength bounds exchanged: L / low taken as the "keep below" bound. The blend
    # band is then never reached (L / high < L / low), so this equals a step at L / low with no
    # blend for every low < high: no case can tell the two apart, and the hint names both
    omega = rotary_frequencies(d, base)
    wavelength = 2 * math.pi / omega
    keep_below, divide_above = original_max_len / low, original_max_len / high
    blend = (original_max_len / wavelength - low) / (high - low)
    blended = (1 - blend) * omega / factor + blend * omega
    divided = torch.where(wavelength > divide_above, omega / factor, blended)
    return torch.where(wavelength < keep_below, omega, divided)


def _llama3_every_pair_divided(d, factor, base, original_max_len, low, high) -> torch.Tensor:
    return rotary_frequencies(d, base) / factor


def _llama3_blend_reversed(d, factor, base, original_max_len, low, high) -> torch.Tensor:
    # the blend weight given to the divided frequency instead of the kept one
    omega = rotary_frequencies(d, base)
    turns = original_max_len * omega / (2 * math.pi)
    s = ((turns - low) / (high - low)).clamp(0, 1)
    kept, divided = turns >= high, turns <= low
    blended = s * omega / factor + (1 - s) * omega
    return torch.where(kept, omega, torch.where(divided, omega / factor, blended))


def _ratio_to_plain(a: np.ndarray, args: tuple) -> np.ndarray:
    """Each frequency over plain rotary's: 1 where a pair is kept, 1 / factor where divided."""
    d, base = args[0], args[2]
    plain = base ** (-np.arange(0, d, 2) / d)
    if a.shape != plain.shape:
        raise ValueError("not one frequency per pair")
    return a / plain


def _bands(ratio: np.ndarray, factor: float) -> dict[str, list[int]]:
    kinds: dict[str, list[int]] = {"keep": [], "blend": [], "divide by factor": [], "other": []}
    for k, r in enumerate(ratio):
        if abs(r - 1) <= 1e-6:
            kinds["keep"].append(k)
        elif abs(r * factor - 1) <= 1e-6:
            kinds["divide by factor"].append(k)
        elif 1 / factor + 1e-4 < r < 1 - 1e-4:
            kinds["blend"].append(k)
        else:
            kinds["other"].append(k)
    return kinds


def _words(kinds: dict[str, list[int]]) -> str:
    parts = [f"{kind} pairs {_ranges(pairs)}" for kind, pairs in kinds.items() if pairs]
    return ", ".join(parts).replace("other pairs", "give other values to pairs")


def _explain_bands(viewed: list) -> str:
    """Which pairs the answer keeps, blends and divides, against the expected bands."""
    texts = []
    for got, expected, case in viewed:
        factor = case.args[1]
        mine, theirs = _bands(got, factor), _bands(expected, factor)
        texts.append((len(got), case.label, mine, theirs))
    size, label, mine, theirs = min(texts, key=lambda t: t[0])
    if all(m == t for _, _, m, t in texts):
        return (
            f"your bands are right ({_words(theirs)} on {label}), but your blended values "
            "differ: between the bounds, s = (original_max_len / wavelength - low_freq_factor) "
            "/ (high_freq_factor - low_freq_factor) weighs the kept frequency."
        )
    return f"on {label}, you {_words(mine)}; expected: {_words(theirs)}."


def check_llama3_frequencies(fn: Callable[..., object]) -> bool:
    """Check ``fn(d, factor, base, original_max_len, low_freq_factor, high_freq_factor)`` ->
    Llama 3's frequencies ``(d/2,)``: pairs with wavelength below ``original_max_len /
    high_freq_factor`` kept, above ``original_max_len / low_freq_factor`` divided by ``factor``,
    blended between (:func:`~helpers.encodings.scaled_rotary_frequencies`, ``method="llama3"``).

    The exercise of notebook 17.
    """
    cases = cases_from(
        _llama3_frequencies,
        _LLAMA3_ARGS,
        lambda d, factor, base, length, low, high: (
            f"d={d}, factor={factor:g}, base={base:g}, original_max_len={length}, "
            f"low_freq_factor={low:g}, high_freq_factor={high:g}"
        ),
    )
    mistakes = [
        Mistake(
            _llama3_bounds_swapped,
            "no pair is blended: you keep every pair with wavelength below original_max_len "
            "/ low_freq_factor and divide every longer one by factor (leaving out the blend "
            "and swapping the two bounds both give this). Keep the pairs below "
            "original_max_len / high_freq_factor (short wavelengths, many turns), divide those "
            "above original_max_len / low_freq_factor, and blend the band between.",
        ),
        Mistake(
            _llama3_every_pair_divided,
            "dividing every frequency by the factor is position interpolation; Llama 3 keeps "
            "the fast pairs as they are.",
        ),
        Mistake(
            _llama3_blend_reversed,
            "the blend is reversed: s = (L / wavelength - low_freq_factor) / (high_freq_factor "
            "- low_freq_factor) is the weight of the kept frequency, 1 - s that of the divided "
            "one.",
        ),
    ]
    return run_checker(
        "check_llama3_frequencies",
        fn,
        cases,
        mistakes,
        rtol=1e-6,
        atol=1e-9,
        generic_hint="the first pair keeps omega_0 = 1 and the slowest is divided by factor.",
        diagnosis=Diagnosis(
            axes=("pair",),
            views=(View("the bands", _ratio_to_plain, axes=("pair",), explain=_explain_bands),),
        ),
    )


# --- dynamic NTK (notebook 17) -----------------------------------------------------------------

# (d, factor, base, original_max_len, seq_len): past and below the original length. No case has
# seq_len / L == factor (where ignoring the factor looks like static NTK), and every case past L
# has a non-integer ratio, one of them above 2 (where integer division shows as itself)
_DYNAMIC_ARGS = [
    (32, 3.0, 10000.0, 256, 700),
    (128, 6.0, 50000000.0, 32768, 45000),
    (16, 2.0, 100.0, 64, 100),
    (32, 2.0, 10000.0, 256, 200),
]


def _dynamic_frequencies(d, factor, base, original_max_len, seq_len) -> torch.Tensor:
    omega, _ = scaled_rotary_frequencies(
        d, "dynamic", factor, base, original_max_len, seq_len=seq_len
    )
    return omega


def _dynamic_from_original_length(d, factor, base, original_max_len, seq_len) -> torch.Tensor:
    # the original length where the current one belongs: the stretch is always 1
    return _dynamic_frequencies(d, factor, base, original_max_len, original_max_len)


def _dynamic_static(d, factor, base, original_max_len, seq_len) -> torch.Tensor:
    return rotary_frequencies(d, base * factor ** (d / (d - 2)))


def _dynamic_not_floored(d, factor, base, original_max_len, seq_len) -> torch.Tensor:
    stretch = factor * seq_len / original_max_len - (factor - 1)  # below 1 for short inputs
    return rotary_frequencies(d, base * stretch ** (d / (d - 2)))


def check_dynamic_ntk_frequencies(fn: Callable[..., object]) -> bool:
    """Check ``fn(d, factor, base, original_max_len, seq_len)`` -> dynamic NTK's frequencies
    ``(d/2,)`` for the current length ``seq_len``: the base times ``(factor * max(seq_len, L)
    / L - (factor - 1)) ** (d / (d - 2))`` (:func:`~helpers.encodings.scaled_rotary_frequencies`,
    ``method="dynamic"``).

    The exercise of notebook 17.
    """
    cases = cases_from(
        _dynamic_frequencies,
        _DYNAMIC_ARGS,
        lambda d, factor, base, length, seq_len: (
            f"d={d}, factor={factor:g}, original_max_len={length}, seq_len={seq_len}"
        ),
    )
    mistakes = [
        Mistake(
            _dynamic_from_original_length,
            "the stretch is computed from the original length, so it is always 1 and nothing "
            "changes: use the current length seq_len.",
        ),
        Mistake(
            _dynamic_static,
            "this is static NTK scaling, the same base at every length; dynamic NTK takes the "
            "stretch factor * seq_len / L - (factor - 1) from the current length.",
        ),
        Mistake(
            _dynamic_not_floored,
            "below the original length the model must run unchanged: take max(seq_len, L), so "
            "that the stretch never falls below 1.",
        ),
    ]
    return run_checker(
        "check_dynamic_ntk_frequencies",
        fn,
        cases,
        mistakes,
        rtol=1e-6,
        atol=1e-9,
        generic_hint="up to the original length the frequencies are plain rotary's.",
        diagnosis=Diagnosis(axes=("pair",), views=(base_view(), wavelength_view())),
    )


# --- the positions of a windowed cache (notebook 17) -------------------------------------------

# (seen, sinks, window): long after and at the first eviction (seen == sinks + window); more
# than the window seen but at most sinks + window (nothing evicted yet: "keep all while seen <=
# window" repeats sink tokens there); fewer tokens seen than sinks (min(sinks, seen)); no sinks
# and one sink
_WINDOW_ARGS = [(50, 4, 8), (12, 4, 8), (9, 2, 8), (3, 4, 8), (30, 1, 5), (9, 0, 4)]


def _window_positions(seen: int, sinks: int, window: int) -> torch.Tensor:
    # (n, 2): the text index of every cached token, and the position it is rotated at (its slot)
    kept = list(range(min(sinks, seen))) + list(range(max(sinks, seen - window), seen))
    return torch.tensor([[index, slot] for slot, index in enumerate(kept)])


def _window_text_positions(seen: int, sinks: int, window: int) -> torch.Tensor:
    kept = _window_positions(seen, sinks, window)[:, 0]
    return torch.stack([kept, kept], dim=1)  # rotated at the text index, gaps and all


def _window_without_sinks(seen: int, sinks: int, window: int) -> torch.Tensor:
    kept = list(range(max(0, seen - sinks - window), seen))  # the last sinks + window tokens
    return torch.tensor([[index, slot] for slot, index in enumerate(kept)])


def _window_one_short(seen: int, sinks: int, window: int) -> torch.Tensor:
    return _window_positions(seen, sinks, window - 1)


def _window_duplicates(got: object, args: tuple) -> object:
    """Fail a case whose extra cached tokens repeat text indices, naming the repeated ones."""
    array = as_numpy(got) if isinstance(got, (np.ndarray, torch.Tensor, list, tuple)) else None
    if array is None or array.ndim != 2 or array.shape[-1] != 2 or array.dtype.kind not in "iuf":
        return got  # the runner names what came back
    indices, counts = np.unique(array[:, 0], return_counts=True)
    twice = [int(i) for i, c in zip(indices, counts, strict=True) if c > 1]
    if not twice or len(array) <= len(_window_positions(*args)):
        return got  # no repeats, or no extra rows for them to explain: the diagnosis says more
    seen, sinks, window = args
    sink_kept_twice = all(i < min(sinks, seen) for i in twice)
    raise CaseFailedError(
        f"your cache holds text {'index' if len(twice) == 1 else 'indices'} "
        f"{_ranges(twice)} more than once.",
        hint=f"{'they are' if len(twice) > 1 else 'it is'} below sinks = {sinks}: "
        f"{'sinks' if len(twice) > 1 else 'a sink'}, kept again in the recent part. The recent part starts at max(sinks, seen - window), "
        "so nothing is evicted while seen <= sinks + window."
        if sink_kept_twice
        else "",
        array=array,
    )


def check_window_positions(fn: Callable[[int, int, int], object]) -> bool:
    """Check ``fn(seen, sinks, window)`` -> an integer array ``(n, 2)``: for a stream of ``seen``
    tokens (the newest one included), one row per token in a cache of ``sinks`` first tokens
    plus the last ``window``: its index in the text, and the position it is rotated at, its
    slot in the cache (StreamingLLM; :class:`~helpers.transformer.WindowedKVCache`).

    The exercise of notebook 17.
    """
    cases = cases_from(
        _window_positions,
        _WINDOW_ARGS,
        lambda seen, sinks, window: f"seen={seen}, sinks={sinks}, window={window}",
    )
    mistakes = [
        Mistake(
            _window_text_positions,
            "the kept tokens are right, but they are rotated at their text positions: after "
            "eviction the offset from the newest query to the kept sinks grows past anything "
            "trained; rotate each at its slot 0, 1, 2, ...",
        ),
        Mistake(
            _window_without_sinks,
            "this is a plain sliding window of sinks + window tokens: the first sinks tokens "
            "of the text must stay in the cache.",
        ),
        Mistake(
            _window_one_short,
            "one recent token too few: the window holds the last window tokens, the newest "
            "one included.",
        ),
    ]
    return run_checker(
        "check_window_positions",
        fn,
        cases,
        mistakes,
        generic_hint="while seen <= sinks + window nothing is evicted: rows (t, t) for t < seen.",
        extract=_window_duplicates,
        diagnosis=Diagnosis(axes=("cached token", "column")),
    )
