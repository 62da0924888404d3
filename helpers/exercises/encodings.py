"""Checkers for the encoding exercises (notebooks 02-05)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..encodings import sinusoidal_encoding
from ._core import Case, Mistake, run_checker

__all__ = ["check_sinusoidal"]

_SINUSOIDAL_ARGS = [(3, 4), (1, 2), (50, 16), (7, 128), (0, 8)]


def _full_index_exponent(num_positions: int, d_model: int) -> np.ndarray:
    """The classic bug: exponent 2i/d with i the dimension index, not the pair index."""
    i = np.arange(d_model)
    angles = np.arange(num_positions)[:, None] / 10000.0 ** (2 * i / d_model)
    return np.where(i % 2 == 0, np.sin(angles), np.cos(angles))


def _counted_from_one(num_positions: int, d_model: int) -> np.ndarray:
    return sinusoidal_encoding(num_positions + 1, d_model)[1:]


def _row_zero_zeroed(num_positions: int, d_model: int) -> np.ndarray:
    pe = sinusoidal_encoding(num_positions, d_model)
    pe[:1] = 0.0
    return pe


def _halves_concatenated(num_positions: int, d_model: int) -> np.ndarray:
    pe = sinusoidal_encoding(num_positions, d_model)
    return np.concatenate([pe[:, 0::2], pe[:, 1::2]], axis=1)


def _sin_cos_swapped(num_positions: int, d_model: int) -> np.ndarray:
    pe = sinusoidal_encoding(num_positions, d_model)
    return np.stack([pe[:, 1::2], pe[:, 0::2]], axis=-1).reshape(num_positions, d_model)


def check_sinusoidal(fn: Callable[[int, int], object]) -> bool:
    """Check ``fn(num_positions, d_model)`` against the paper's sinusoidal encoding."""
    cases = [
        Case(args, sinusoidal_encoding(*args), f"num_positions={args[0]}, d_model={args[1]}")
        for args in _SINUSOIDAL_ARGS
    ]
    mistakes = [
        Mistake(_full_index_exponent,
                "the exponent uses the dimension index i; use the pair index k = i // 2, so that "
                "dimensions 2k and 2k+1 share omega_k = 1 / 10000**(2k / d_model)."),
        Mistake(_counted_from_one, "positions start at 1; the first row is position t = 0."),
        Mistake(_row_zero_zeroed,
                "row 0 is all zeros; at t = 0, sin(0) = 0 but cos(0) = 1, so row 0 is [0, 1, 0, 1, ...]."),
        Mistake(_halves_concatenated,
                "you put all sines first and all cosines after; the paper interleaves them: "
                "even dimensions sin, odd dimensions cos."),
        Mistake(_sin_cos_swapped, "sin and cos are swapped: even dimensions take sin, odd take cos."),
    ]
    return run_checker("check_sinusoidal", fn, cases, mistakes,
                       generic_hint="compare your first rows with the worked table for d_model = 4.")
