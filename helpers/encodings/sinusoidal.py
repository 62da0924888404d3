"""The sinusoidal positional encoding of Vaswani et al. (2017), section 3.5.

Notation used across the course: position ``t`` (counted from 0), model width ``d_model``,
pair index ``k`` in ``0 .. d_model/2 - 1`` and angular frequency
``omega_k = 1 / base**(2k / d_model)``. Dimensions ``2k`` and ``2k+1`` form a pair that shares
``omega_k``: ``PE[t, 2k] = sin(omega_k t)`` and ``PE[t, 2k+1] = cos(omega_k t)``.
"""

from __future__ import annotations

import numpy as np

from .._checks import check_even, check_int, check_positive_float

__all__ = ["frequencies", "sinusoidal_encoding"]


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``omega_k = base**(-2k / d_model)`` for ``k = 0 .. d_model/2 - 1``.

    Returns a float64 array of shape ``(d_model // 2,)``, decreasing from 1.
    """
    d_model = check_even("d_model", d_model)
    base = check_positive_float("base", base)
    k = np.arange(d_model // 2)  # pair index, NOT the dimension index
    return base ** (-2.0 * k / d_model)


def sinusoidal_encoding(num_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Table of sinusoidal encodings for positions ``0 .. num_positions - 1``.

    Returns a float64 array ``PE`` of shape ``(num_positions, d_model)`` in the paper's
    interleaved layout: ``PE[t, 2k] = sin(t * omega_k)``, ``PE[t, 2k+1] = cos(t * omega_k)``.
    Row 0 is ``[0, 1, 0, 1, ...]``; every value lies in [-1, 1].
    """
    num_positions = check_int("num_positions", num_positions, minimum=0)
    omega = frequencies(d_model, base)  # (d_model/2,)
    t = np.arange(num_positions, dtype=np.float64)[:, None]  # (num_positions, 1)
    angles = t * omega[None, :]  # (num_positions, d_model/2)
    pe = np.empty((num_positions, d_model), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe
