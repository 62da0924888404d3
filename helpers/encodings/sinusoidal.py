"""The sinusoidal positional encoding of Vaswani et al. (2017), section 3.5.

Notation used across the course: position ``t`` (counted from 0), model width ``d_model``,
pair index ``k`` in ``0 .. d_model/2 - 1`` and angular frequency
``omega_k = 1 / base**(2k / d_model)``. Dimensions ``2k`` and ``2k+1`` form a pair that shares
``omega_k``: ``PE[t, 2k] = sin(omega_k t)`` and ``PE[t, 2k+1] = cos(omega_k t)``.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import torch
from torch import nn

from .._checks import require_even, require_int, require_positive_float, require_probability
from .base import require_rows

__all__ = [
    "frequencies",
    "sinusoidal_encoding",
    "SinusoidalPositionalEncoding",
    "offset_matrix",
]

_LONGER = "build the module with a larger max_len (the formula works for any position)"


def frequencies(d_model: int, base: float = 10000.0) -> np.ndarray:
    """Angular frequencies ``omega_k = base**(-2k / d_model)`` for ``k = 0 .. d_model/2 - 1``.

    Returns a float64 array of shape ``(d_model // 2,)``, decreasing from 1.
    Derived in notebook 03; used in notebooks 04, 13 and 15.
    """
    d_model = require_even("d_model", d_model)
    base = require_positive_float("base", base)
    k = np.arange(d_model // 2)  # pair index, NOT the dimension index
    return base ** (-2.0 * k / d_model)


def sinusoidal_encoding(num_positions: int, d_model: int, base: float = 10000.0) -> np.ndarray:
    """Table of sinusoidal encodings for positions ``0 .. num_positions - 1``.

    Returns a float64 array ``PE`` of shape ``(num_positions, d_model)`` in the paper's
    interleaved layout: ``PE[t, 2k] = sin(t * omega_k)``, ``PE[t, 2k+1] = cos(t * omega_k)``.
    Row 0 is ``[0, 1, 0, 1, ...]``; every value lies in [-1, 1].
    Derived in notebook 03; used in most lessons after it.
    """
    num_positions = require_int("num_positions", num_positions, minimum=0)
    omega = frequencies(d_model, base)  # (d_model/2,)
    t = np.arange(num_positions, dtype=np.float64)[:, None]  # (num_positions, 1)
    angles = t * omega[None, :]  # (num_positions, d_model/2)
    pe = np.empty((num_positions, d_model), dtype=np.float64)
    pe[:, 0::2] = np.sin(angles)
    pe[:, 1::2] = np.cos(angles)
    return pe


class SinusoidalPositionalEncoding(nn.Module):
    """Adds the fixed sinusoidal encoding to a batch of vectors, then applies dropout.

    ``forward(x)`` takes ``x`` of shape ``(batch, seq_len, d_model)`` and returns
    ``dropout(x + PE[:seq_len])``, the order of section 5.4 of the paper (dropout on the sum).
    The table ``PE`` (``max_len, d_model``) is computed once and kept in a registered,
    non-persistent buffer named ``pe``: it follows ``.to(device)`` and ``.double()`` like a
    parameter, is never trained, and stays out of ``state_dict`` (it can always be recomputed).
    Derived in notebook 03; used in notebook 13, and inside :class:`TokenAndPositionalEmbedding`
    (notebook 05).
    """

    pe: torch.Tensor

    def __init__(
        self, d_model: int, max_len: int = 512, base: float = 10000.0, dropout: float = 0.0
    ) -> None:
        super().__init__()
        self.d_model = require_even("d_model", d_model)
        self.max_len = require_int("max_len", max_len, minimum=1)
        self.base = require_positive_float("base", base)
        self.dropout = nn.Dropout(require_probability("dropout", dropout))
        table = sinusoidal_encoding(self.max_len, self.d_model, self.base)  # float64
        pe = torch.tensor(table, dtype=torch.get_default_dtype())  # (max_len, d_model)
        self.register_buffer("pe", pe, persistent=False)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """``x (batch, seq_len, d_model)`` -> ``dropout(x + PE[offset : offset + seq_len])``, same
        shape and dtype. ``offset`` > 0: the tokens continue a cached prefix (notebook 15)."""
        end = require_rows(x, offset, self.d_model, self.max_len, _LONGER)
        return self.dropout(x + self.pe[offset:end].to(dtype=x.dtype))  # (batch, seq_len, d_model)

    def extra_repr(self) -> str:
        return f"d_model={self.d_model}, max_len={self.max_len}, base={self.base:g}"


def offset_matrix(offset: float, d_model: int, base: float = 10000.0) -> np.ndarray:
    """The matrix ``M(phi)`` of shape ``(d_model, d_model)`` with ``M(phi) @ PE[t] == PE[t + phi]``.

    Block diagonal: pair ``k`` gets the 2x2 block ``[[cos(omega_k phi), sin(omega_k phi)],
    [-sin(omega_k phi), cos(omega_k phi)]]`` acting on ``(sin(omega_k t), cos(omega_k t))``, a
    rotation by ``-omega_k phi`` in the (sin, cos) plane. It does not depend on ``t``; ``phi`` may
    be negative or fractional. ``M(phi)`` is orthogonal and ``M(a) @ M(b) == M(a + b)``.
    Derived in notebook 04; used in notebooks 08 and 13.
    """
    if isinstance(offset, bool) or not isinstance(offset, numbers.Real):
        raise TypeError(
            f"offset must be a real number, got {offset!r} of type {type(offset).__name__}"
        )
    if not math.isfinite(offset):
        raise ValueError(f"offset must be finite, got {offset!r}")
    angles = frequencies(d_model, base) * float(offset)  # (d_model/2,): omega_k * phi
    cos, sin = np.cos(angles), np.sin(angles)
    m = np.zeros((d_model, d_model), dtype=np.float64)
    even = np.arange(0, d_model, 2)  # row/column 2k holds sin, 2k+1 holds cos
    m[even, even] = cos  # sin(w(t+phi)) = cos(w phi) sin(w t) + sin(w phi) cos(w t)
    m[even, even + 1] = sin
    m[even + 1, even] = -sin  # cos(w(t+phi)) = -sin(w phi) sin(w t) + cos(w phi) cos(w t)
    m[even + 1, even + 1] = cos
    return m
