"""Two-dimensional sinusoidal encodings for a grid of image patches.

A Vision Transformer cuts an image into a ``height x width`` grid of patches. A 2-D encoding
gives patch ``(r, c)`` a vector whose first half is the 1-D sinusoidal encoding of the row
``r`` and whose second half is the 1-D encoding of the column ``c``, each of width
``d_model / 2`` (so ``d_model`` must be divisible by 4: each half is made of sin/cos pairs).
Two patches in the same row share the first half; two in the same column share the second.
"""

from __future__ import annotations

import numpy as np

from .._checks import require_int, require_positive_float
from .sinusoidal import sinusoidal_encoding

__all__ = ["sinusoidal_encoding_2d"]


def sinusoidal_encoding_2d(
    height: int, width: int, d_model: int, base: float = 10000.0
) -> np.ndarray:
    """Encoding of every patch of a ``height x width`` grid, float64 ``(height, width, d_model)``.

    ``PE[r, c, :d_model/2] = sinusoidal_encoding(height, d_model/2)[r]`` (the row) and
    ``PE[r, c, d_model/2:] = sinusoidal_encoding(width, d_model/2)[c]`` (the column).
    Derived in notebook 11.
    """
    height = require_int("height", height, minimum=1)
    width = require_int("width", width, minimum=1)
    d_model = require_int("d_model", d_model, minimum=1)
    if d_model % 4:
        raise ValueError(
            f"d_model must be divisible by 4 (two halves made of sin/cos pairs), got {d_model}"
        )
    base = require_positive_float("base", base)
    half = d_model // 2
    rows = sinusoidal_encoding(height, half, base)  # (height, d_model/2)
    cols = sinusoidal_encoding(width, half, base)  # (width, d_model/2)
    pe = np.empty((height, width, d_model), dtype=np.float64)
    pe[:, :, :half] = rows[:, None, :]  # the same for every column c
    pe[:, :, half:] = cols[None, :, :]  # the same for every row r
    return pe
