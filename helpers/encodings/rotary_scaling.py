"""Stretching rotary embeddings past their training length (notebook 15).

A rotary model trained on sequences of length ``L`` has seen pair ``k`` turn by angles
``t * omega_k`` for ``t < L`` only. At ``t >= L`` the slow pairs meet angles they never saw. The
methods below change the frequencies ``omega_k`` (and, for YaRN, the attention temperature) so
that a longer context ``factor * L`` maps onto angles the model knows:

- ``"linear"``, position interpolation (Chen et al. 2023, arXiv:2306.15595): every frequency
  divided by ``factor``, i.e. positions squeezed by ``L / (factor * L)``.
- ``"ntk"``, NTK-aware scaling (bloc97, 2023): the base raised to
  ``base * factor ** (d / (d - 2))``. The slowest pair is interpolated exactly by ``factor``,
  the fastest pair not at all, and the pairs between by a geometric blend.
- ``"yarn"`` (Peng et al. 2023, arXiv:2309.00071): "by parts". Pairs that turn many times
  (``>= beta_fast`` rotations) within the original length keep their frequency, pairs that turn
  less than ``beta_slow`` times are interpolated, a linear ramp blends the pairs between; and the
  queries and keys are each scaled by ``0.1 * ln(factor) + 1``.

The rules of the models people run today (notebook 17), each equal to ``transformers``'
rotary-parameter function of the same name:

- ``"llama3"`` (Meta's Llama 3.1): "by wavelength". With ``lambda_k = 2 pi / omega_k`` and the
  training length ``L``, pairs with ``lambda_k < L / high_freq_factor`` keep their frequency,
  pairs with ``lambda_k > L / low_freq_factor`` are divided by ``factor``, and between them
  ``s = (L / lambda_k - low_freq_factor) / (high_freq_factor - low_freq_factor)`` blends the two:
  ``omega_k * ((1 - s) / factor + s)``. No attention temperature.
- ``"dynamic"``, dynamic NTK (emozilla, 2023): the NTK base computed at inference from the
  current length ``seq_len``: ``base * (factor * max(seq_len, L) / L - (factor - 1)) **
  (d / (d - 2))``; plain rotary up to ``L``, and the base grows with the text.
- ``"longrope"`` (Ding et al. 2024, arXiv:2402.13753): one searched factor per pair,
  ``omega_k / r_k``, from ``short_factor`` up to ``L`` and ``long_factor`` beyond (the factors
  come from an evolutionary search, not a formula), and queries and keys scaled by
  ``sqrt(1 + ln(factor) / ln(L))``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import torch

from .._checks import require_choice, require_even, require_int, require_positive_float
from .rotary import rotary_frequencies

__all__ = ["ROTARY_SCALINGS", "PHI3_LONGROPE_FACTORS", "scaled_rotary_frequencies"]

ROTARY_SCALINGS = ("linear", "ntk", "yarn", "llama3", "dynamic", "longrope")

# LongRoPE's searched factors as one released model ships them: Phi-3-vision-128k-instruct's
# config.json ("rope_scaling": {"type": "su", ...}; "su" is the Phi-3 code's earlier name for
# longrope), for its text model of Phi-3 mini's shape (head width 96: 48 pairs, original length
# 4,096, 131,072 tokens). Both sets rise with the pair index: slow pairs are stretched most.
# Used in notebook 17.
# fmt: off
PHI3_LONGROPE_FACTORS = {
    "short_factor": (
        1.05, 1.05, 1.05, 1.1, 1.1, 1.1, 1.2500000000000002, 1.2500000000000002,
        1.4000000000000004, 1.4500000000000004, 1.5500000000000005, 1.8500000000000008,
        1.9000000000000008, 2.000000000000001, 2.000000000000001, 2.000000000000001,
        2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
        2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
        2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
        2.000000000000001, 2.000000000000001, 2.000000000000001, 2.000000000000001,
        2.1000000000000005, 2.1000000000000005, 2.2, 2.3499999999999996, 2.3499999999999996,
        2.3499999999999996, 2.3499999999999996, 2.3999999999999995, 2.3999999999999995,
        2.6499999999999986, 2.6999999999999984, 2.8999999999999977, 2.9499999999999975,
        3.049999999999997, 3.049999999999997, 3.049999999999997,
    ),
    "long_factor": (
        1.0299999713897705, 1.0499999523162842, 1.0499999523162842, 1.0799999237060547,
        1.2299998998641968, 1.2299998998641968, 1.2999999523162842, 1.4499999284744263,
        1.5999999046325684, 1.6499998569488525, 1.8999998569488525, 2.859999895095825,
        3.68999981880188, 5.419999599456787, 5.489999771118164, 5.489999771118164,
        9.09000015258789, 11.579999923706055, 15.65999984741211, 15.769999504089355,
        15.789999961853027, 18.360000610351562, 21.989999771118164, 23.079999923706055,
        30.009998321533203, 32.35000228881836, 32.590003967285156, 35.56000518798828,
        39.95000457763672, 53.840003967285156, 56.20000457763672, 57.95000457763672,
        59.29000473022461, 59.77000427246094, 59.920005798339844, 61.190006256103516,
        61.96000671386719, 62.50000762939453, 63.3700065612793, 63.48000717163086,
        63.48000717163086, 63.66000747680664, 63.850006103515625, 64.08000946044922,
        64.760009765625, 64.80001068115234, 64.81001281738281, 64.81001281738281,
    ),
}
# fmt: on


def _pair_with_rotations(rotations: float, d: int, base: float, original_max_len: int) -> float:
    """The (fractional) pair index ``k`` whose wavelength ``2 pi base**(2k/d)`` fits
    ``rotations`` times into ``original_max_len`` positions."""
    return d * math.log(original_max_len / (rotations * 2 * math.pi)) / (2 * math.log(base))


def _yarn_correction_range(
    d: int, base: float, original_max_len: int, beta_fast: float, beta_slow: float
) -> tuple[int, int]:
    """YaRN's ramp ``(low, high)`` over pair indices, floored/ceiled and clipped to
    ``[0, d - 1]`` as in the authors' code: pairs ``k <= low`` keep their frequency, pairs
    ``k >= high`` are interpolated."""
    low = math.floor(_pair_with_rotations(beta_fast, d, base, original_max_len))
    high = math.ceil(_pair_with_rotations(beta_slow, d, base, original_max_len))
    return max(low, 0), min(high, d - 1)


def scaled_rotary_frequencies(
    d: int,
    method: str,
    factor: float,
    base: float = 10000.0,
    original_max_len: int | None = None,
    beta_fast: float = 32.0,
    beta_slow: float = 1.0,
    *,
    low_freq_factor: float = 1.0,
    high_freq_factor: float = 4.0,
    seq_len: int | None = None,
    short_factor: Sequence[float] | None = None,
    long_factor: Sequence[float] | None = None,
) -> tuple[torch.Tensor, float]:
    """Rotary frequencies for a context ``factor`` times longer than the training length.

    ``d``: rotary width of one head (even, >= 4). ``method``: one of :data:`ROTARY_SCALINGS`;
    every method but ``"linear"`` and ``"ntk"`` needs ``original_max_len``, the training length.
    ``factor >= 1`` (1 returns the unscaled frequencies). ``beta_fast``, ``beta_slow``: YaRN's
    ramp; ``low_freq_factor < high_freq_factor``: Llama 3's band (Meta's values 1 and 4 by
    default); ``seq_len``: the current length, needed by ``"dynamic"`` and choosing LongRoPE's
    ``long_factor`` over its ``short_factor`` (``d/2`` positive numbers each) past
    ``original_max_len``. Returns ``(omega, attention_scale)``: ``omega`` a float64 tensor
    ``(d/2,)``, and the factor to multiply queries and keys by, each (1.0 except for YaRN and
    LongRoPE). Derived in notebooks 15 (linear, ntk, yarn) and 17 (llama3, dynamic, longrope).
    """
    d, method, factor, base = _require_scaling(d, method, factor, base)
    omega = rotary_frequencies(d, base)  # (d/2,) float64, omega_k = base**(-2k/d)

    if method == "linear":
        return omega / factor, 1.0
    if method == "ntk":
        return rotary_frequencies(d, base * factor ** (d / (d - 2))), 1.0

    if original_max_len is None:
        raise ValueError(
            f"original_max_len (the training length) is required for method={method!r}"
        )
    original_max_len = require_int("original_max_len", original_max_len, minimum=1)
    if method == "yarn":
        return _yarn(omega, factor, base, original_max_len, beta_fast, beta_slow)
    if method == "llama3":
        return _llama3(omega, factor, original_max_len, low_freq_factor, high_freq_factor), 1.0
    if seq_len is not None:
        seq_len = require_int("seq_len", seq_len, minimum=1)
    if method == "dynamic":
        return _dynamic(d, factor, base, original_max_len, seq_len), 1.0
    return _longrope(omega, factor, original_max_len, seq_len, short_factor, long_factor)


def _require_scaling(d: int, method: str, factor: float, base: float):
    """The arguments every method takes, checked: ``(d, method, factor, base)``."""
    d = require_even("d", d)
    if d < 4:
        raise ValueError(f"d must be an even integer >= 4 (NTK scaling divides by d - 2), got {d}")
    method = require_choice("method", method, ROTARY_SCALINGS)
    factor = require_positive_float("factor", factor)
    if factor < 1:
        raise ValueError(
            f"factor must be >= 1 (the new length over the training one), got {factor}"
        )
    base = require_positive_float("base", base)
    if base <= 1:
        raise ValueError(
            f"base must be > 1 (frequencies must fall with the pair index), got {base}"
        )
    return d, method, factor, base


def _yarn(
    omega: torch.Tensor,
    factor: float,
    base: float,
    original_max_len: int,
    beta_fast: float,
    beta_slow: float,
) -> tuple[torch.Tensor, float]:
    """YaRN: a ramp over pair indices between ``beta_fast`` and ``beta_slow`` rotations."""
    d = 2 * len(omega)
    beta_fast = require_positive_float("beta_fast", beta_fast)
    beta_slow = require_positive_float("beta_slow", beta_slow)
    if beta_slow >= beta_fast:
        raise ValueError(f"beta_slow must be < beta_fast, got {beta_slow} and {beta_fast}")
    low, high = _yarn_correction_range(d, base, original_max_len, beta_fast, beta_slow)
    if high == low:
        high += 0.001  # the authors' guard against a zero-width ramp
    k = torch.arange(d // 2, dtype=torch.float64)
    interpolated = ((k - low) / (high - low)).clamp(0, 1)  # 0: keep omega_k, 1: omega_k / factor
    omega = omega * (1 - interpolated) + omega / factor * interpolated
    return omega, 0.1 * math.log(factor) + 1.0


def _llama3(
    omega: torch.Tensor,
    factor: float,
    original_max_len: int,
    low_freq_factor: float,
    high_freq_factor: float,
) -> torch.Tensor:
    """Llama 3's rule: keep short wavelengths, divide long ones by ``factor``, blend between."""
    low_freq_factor = require_positive_float("low_freq_factor", low_freq_factor)
    high_freq_factor = require_positive_float("high_freq_factor", high_freq_factor)
    if high_freq_factor < low_freq_factor:
        raise ValueError(
            f"high_freq_factor must be >= low_freq_factor (wavelengths below "
            f"original_max_len / high_freq_factor are kept, above original_max_len / "
            f"low_freq_factor divided), got {high_freq_factor} and {low_freq_factor}"
        )
    turns = original_max_len / (2 * math.pi / omega)  # (d/2,) L / lambda_k: turns within L
    if high_freq_factor == low_freq_factor:  # no band between: a step
        s = (turns > high_freq_factor).to(omega.dtype)
    else:  # 1 where the pair turns high_freq_factor times or more within L, 0 at low_freq_factor
        s = ((turns - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    return omega * ((1 - s) / factor + s)


def _dynamic(
    d: int, factor: float, base: float, original_max_len: int, seq_len: int | None
) -> torch.Tensor:
    """Dynamic NTK: the NTK base for the current length ``seq_len`` (plain up to the training
    length)."""
    if seq_len is None:
        raise ValueError("seq_len (the current length) is required for method='dynamic'")
    stretch = factor * max(seq_len, original_max_len) / original_max_len - (factor - 1)
    return rotary_frequencies(d, base * stretch ** (d / (d - 2)))


def _longrope(
    omega: torch.Tensor,
    factor: float,
    original_max_len: int,
    seq_len: int | None,
    short_factor: Sequence[float] | None,
    long_factor: Sequence[float] | None,
) -> tuple[torch.Tensor, float]:
    """LongRoPE: one factor per pair, the long set past the training length."""
    short = _per_pair_factors("short_factor", short_factor, len(omega))
    long = _per_pair_factors("long_factor", long_factor, len(omega))
    rescale = long if seq_len is not None and seq_len > original_max_len else short
    scale = 1.0 if factor == 1 else math.sqrt(1 + math.log(factor) / math.log(original_max_len))
    return omega / rescale, scale


def _per_pair_factors(name: str, values: Sequence[float] | None, num_pairs: int) -> torch.Tensor:
    """``values`` as a float64 tensor ``(num_pairs,)`` of positive numbers, or a clear error."""
    if values is None:
        raise ValueError(f"{name} (one factor per pair) is required for method='longrope'")
    if isinstance(values, (str, bytes)) or not isinstance(values, (Sequence, torch.Tensor)):
        raise TypeError(f"{name} must be a sequence of {num_pairs} numbers, got {values!r}")
    tensor = torch.as_tensor(values, dtype=torch.float64)
    if tensor.shape != (num_pairs,) or not bool((tensor > 0).all()):
        raise ValueError(
            f"{name} must hold d/2 = {num_pairs} positive numbers, got {len(values)} values "
            f"{list(values)[:4]}..."
        )
    return tensor
