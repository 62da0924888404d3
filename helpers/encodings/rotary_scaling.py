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
"""

from __future__ import annotations

import math

import torch

from .._checks import require_choice, require_even, require_int, require_positive_float
from .rotary import rotary_frequencies

__all__ = ["ROTARY_SCALINGS", "scaled_rotary_frequencies"]

ROTARY_SCALINGS = ("linear", "ntk", "yarn")


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
) -> tuple[torch.Tensor, float]:
    """Rotary frequencies for a context ``factor`` times longer than the training length.

    ``d``: rotary width of one head (even, >= 4). ``method``: ``"linear"``, ``"ntk"`` or
    ``"yarn"`` (which needs ``original_max_len``, the training length). ``factor >= 1``
    (1 returns the unscaled frequencies). Returns ``(omega, attention_scale)``: ``omega`` a
    float64 tensor ``(d/2,)``, and the factor to multiply queries and keys by, each (1.0 except
    for YaRN). Derived in notebook 15.
    """
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
    omega = rotary_frequencies(d, base)  # (d/2,) float64, omega_k = base**(-2k/d)

    if method == "linear":
        return omega / factor, 1.0
    if method == "ntk":
        return rotary_frequencies(d, base * factor ** (d / (d - 2))), 1.0

    if original_max_len is None:
        raise ValueError("original_max_len (the training length) is required for method='yarn'")
    original_max_len = require_int("original_max_len", original_max_len, minimum=1)
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
