"""Checkers for the encoding exercises (notebooks 02-05)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from ..encodings import binary_encoding, frequencies, offset_matrix, sinusoidal_encoding
from ._core import Case, Mistake, as_numpy, cases_from, run_checker
from ._diagnose import Diagnosis, View, _rule_explainer

__all__ = [
    "check_sinusoidal",
    "check_binary_encoding",
    "check_wavelengths",
    "check_offset_matrix",
    "check_token_and_position",
]

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
    """Check ``fn(num_positions, d_model)`` against the paper's sinusoidal encoding.

    The exercise of notebook 03; used again in notebook 13.
    """
    cases = cases_from(
        sinusoidal_encoding, _SINUSOIDAL_ARGS, lambda n, d: f"num_positions={n}, d_model={d}"
    )
    mistakes = [
        Mistake(
            _full_index_exponent,
            "the exponent uses the dimension index i; use the pair index k = i // 2, so that "
            "dimensions 2k and 2k+1 share omega_k = 1 / 10000**(2k / d_model).",
        ),
        Mistake(_counted_from_one, "positions start at 1; the first row is position t = 0."),
        Mistake(
            _row_zero_zeroed,
            "row 0 is all zeros; at t = 0, sin(0) = 0 but cos(0) = 1, so row 0 is [0, 1, 0, 1, ...].",
        ),
        Mistake(
            _halves_concatenated,
            "you put all sines first and all cosines after; the paper interleaves them: "
            "even dimensions sin, odd dimensions cos.",
        ),
        Mistake(
            _sin_cos_swapped, "sin and cos are swapped: even dimensions take sin, odd take cos."
        ),
    ]
    return run_checker(
        "check_sinusoidal",
        fn,
        cases,
        mistakes,
        generic_hint="compare your first rows with the worked table for d_model = 4.",
        diagnosis=Diagnosis(
            axes=("position", "feature"),
            pairs=True,
            views=(
                View(
                    "the angles of your (sin, cos) pairs",
                    lambda a, args: np.arctan2(a[:, 0::2], a[:, 1::2]),
                    period=2 * np.pi,
                    axes=("position", "pair"),
                    explain=_rule_explainer(lambda args: (np.arange(args[0]), args[1], 1e4)),
                ),
            ),
        ),
    )


# --- notebook 02: the binary code of a position ----------------------------------------------

_BINARY_ARGS = [
    (np.arange(8), 3),
    (np.arange(20), 5),
    (np.array([5, 6, 300, 1500]), 10),  # more bits than a byte; 1500 wraps
    (np.arange(4), 1),
]


def _binary_msb_first(positions: np.ndarray, num_bits: int) -> np.ndarray:
    return binary_encoding(positions, num_bits)[:, ::-1]


def _binary_from_one(positions: np.ndarray, num_bits: int) -> np.ndarray:
    return binary_encoding(np.asarray(positions) + 1, num_bits)


def _binary_plus_minus(positions: np.ndarray, num_bits: int) -> np.ndarray:
    return 2.0 * binary_encoding(positions, num_bits) - 1.0


def check_binary_encoding(fn: Callable[[np.ndarray, int], object]) -> bool:
    """Check ``fn(positions, num_bits)``: bits of each position, least significant first.

    The bits are judged as numbers 0 and 1, whatever their dtype (floats, integers or booleans):
    nothing downstream needs floats (notebook 02's own ``binary_code`` makes integers, and NumPy
    promotes them where a code meets float vectors).

    The exercise of notebook 02.
    """
    cases = cases_from(
        binary_encoding, _BINARY_ARGS, lambda t, bits: f"positions={t.tolist()}, num_bits={bits}"
    )
    mistakes = [
        Mistake(
            _binary_msb_first,
            "your columns run from the most significant bit; put bit 0 (the one that flips at "
            "every step) in column 0, like the fastest dimension of the sinusoidal encoding.",
        ),
        Mistake(_binary_from_one, "you encoded t + 1; position t is encoded as the number t."),
        Mistake(_binary_plus_minus, "bits are 0.0 and 1.0 here, not -1 and +1."),
    ]
    return run_checker(
        "check_binary_encoding",
        fn,
        cases,
        mistakes,
        generic_hint="bit j of t is (t >> j) & 1, or (t // 2**j) % 2; positions past 2**num_bits wrap.",
        diagnosis=Diagnosis(axes=("position", "bit")),
    )


# --- notebook 03: wavelengths of the sinusoidal encoding -------------------------------------

_WAVELENGTH_ARGS = [
    (4, 10000.0),
    (8, 10000.0),
    (512, 10000.0),
    (6, 500.0),
]  # 10000 is no power of 500


def _wavelengths(d_model: int, base: float) -> np.ndarray:
    return 2.0 * np.pi / frequencies(d_model, base)


def _wavelengths_without_two_pi(d_model: int, base: float) -> np.ndarray:
    return 1.0 / frequencies(d_model, base)


def _frequencies_instead(d_model: int, base: float) -> np.ndarray:
    return frequencies(d_model, base)


def _wavelengths_exponent_k(d_model: int, base: float) -> np.ndarray:
    k = np.arange(d_model // 2)
    return 2.0 * np.pi * base ** (k / d_model)


def _wavelengths_dimension_index(d_model: int, base: float) -> np.ndarray:
    i = 2 * np.arange(d_model // 2)  # dimension index 2k used where the pair index k belongs
    return 2 * np.pi * base ** (2 * i / d_model)


def check_wavelengths(fn: Callable[[int, float], object]) -> bool:
    """Check ``fn(d_model, base)``: the wavelengths ``2 pi / omega_k`` of the d_model/2 pairs.

    The exercise of notebook 03; used again in notebook 13.
    """
    cases = cases_from(
        _wavelengths, _WAVELENGTH_ARGS, lambda d, base: f"d_model={d}, base={base:g}"
    )
    mistakes = [
        Mistake(
            _wavelengths_without_two_pi,
            "you returned 1 / omega_k; a wavelength (in positions) is 2 pi / omega_k, because "
            "sin(omega t) repeats when omega t grows by 2 pi.",
        ),
        Mistake(_frequencies_instead, "you returned the frequencies omega_k, not 2 pi / omega_k."),
        Mistake(
            _wavelengths_dimension_index,
            "the exponent uses the dimension index 2k (so 4k / d_model); use the pair index: "
            "omega_k = 1 / base**(2k / d_model) for k = 0 .. d_model/2 - 1.",
        ),
        Mistake(
            _wavelengths_exponent_k,
            "the exponent is 2k / d_model (k the pair index), not k / d_model.",
        ),
    ]
    return run_checker(
        "check_wavelengths", fn, cases, mistakes, diagnosis=Diagnosis(axes=("pair",))
    )


# --- notebook 04: the offset (rotation) matrix ------------------------------------------------

_OFFSET_ARGS = [(1, 2), (3, 4), (-5, 8), (0.5, 16), (40, 64), (0, 6)]


def _offset_transposed(offset: float, d_model: int) -> np.ndarray:
    return offset_matrix(offset, d_model).T


def _offset_full_index(offset: float, d_model: int) -> np.ndarray:
    """Blocks with the dimension index i = 2k in the exponent: omega = 10000**(-2i / d_model)."""
    i = np.arange(0, d_model, 2)
    angles = offset * 10000.0 ** (-2.0 * i / d_model)
    cos, sin = np.cos(angles), np.sin(angles)
    m = np.zeros((d_model, d_model))
    m[i, i], m[i, i + 1], m[i + 1, i], m[i + 1, i + 1] = cos, sin, -sin, cos
    return m


def _offset_halves(offset: float, d_model: int) -> np.ndarray:
    """The right blocks, but for the layout [all sines, all cosines]."""
    order = np.concatenate([np.arange(0, d_model, 2), np.arange(1, d_model, 2)])
    return offset_matrix(offset, d_model)[np.ix_(order, order)]


def _block_angles(m: np.ndarray, args: tuple) -> np.ndarray:
    """The angle each 2x2 block (2k, 2k+1) turns by, (1, d/2): M[2k, 2k] = cos, M[2k, 2k+1] = sin."""
    return np.arctan2(np.diagonal(m, 1)[0::2], np.diagonal(m)[0::2])[None, :]


def check_offset_matrix(fn: Callable[[float, int], object]) -> bool:
    """Check ``fn(offset, d_model)``: the matrix M(phi) with M(phi) @ PE[t] == PE[t + phi].

    The exercise of notebook 04; used again in notebook 13.
    """
    cases = cases_from(offset_matrix, _OFFSET_ARGS, lambda k, d: f"offset={k}, d_model={d}")
    mistakes = [
        Mistake(
            _offset_transposed,
            "your 2x2 blocks are transposed: that is M(-phi), which shifts backwards. Acting on "
            "(sin, cos), the block is [[cos, sin], [-sin, cos]] of omega_k phi.",
        ),
        Mistake(
            _offset_full_index,
            "pair k uses omega_k = 1 / 10000**(2k / d_model) with the pair index k; you used the "
            "dimension index 2k in its place.",
        ),
        Mistake(
            _offset_halves,
            "your matrix is for the layout [all sines, all cosines]; the encoding interleaves "
            "them, so pair k sits in rows and columns 2k and 2k+1.",
        ),
    ]
    return run_checker(
        "check_offset_matrix",
        fn,
        cases,
        mistakes,
        generic_hint="expand sin(omega (t + phi)) and cos(omega (t + phi)) with the addition "
        "formulas and read off the four entries of each block.",
        diagnosis=Diagnosis(
            axes=("row", "column"),
            pairs=True,
            views=(
                View(
                    "the angles of your 2x2 blocks",
                    _block_angles,
                    period=2 * np.pi,
                    axes=("offset", "pair"),
                    explain=_rule_explainer(lambda args: (np.array([args[0]]), args[1], 1e4)),
                ),
            ),
        ),
    )


# --- notebook 05: token embedding plus position ----------------------------------------------


def _embedding_case(
    seed: int, vocab_size: int, d_model: int, batch: int, seq_len: int, max_len: int
):
    generator = torch.Generator().manual_seed(seed)
    tokens = torch.randint(0, vocab_size, (batch, seq_len), generator=generator)
    weight = torch.randn(vocab_size, d_model, generator=generator) / d_model**0.5
    pe = torch.tensor(sinusoidal_encoding(max_len, d_model), dtype=torch.float32)
    return tokens, weight, pe


_EMBEDDING_CASES = [(0, 10, 4, 1, 3, 8), (1, 50, 16, 2, 7, 7), (2, 100, 64, 3, 20, 32)]


def _token_and_position(tokens, weight, pe):
    d_model = weight.shape[1]
    return weight[tokens] * d_model**0.5 + pe[: tokens.shape[1]]


def _not_scaled(tokens, weight, pe):
    return weight[tokens] + pe[: tokens.shape[1]]


def _sum_scaled(tokens, weight, pe):
    return (weight[tokens] + pe[: tokens.shape[1]]) * weight.shape[1] ** 0.5


def _divided(tokens, weight, pe):
    return weight[tokens] / weight.shape[1] ** 0.5 + pe[: tokens.shape[1]]


def check_token_and_position(
    fn: Callable[[torch.Tensor, torch.Tensor, torch.Tensor], object],
) -> bool:
    """Check ``fn(tokens, weight, pe)`` = ``weight[tokens] * sqrt(d_model) + pe[:seq_len]``.

    ``tokens (batch, seq_len)`` long, ``weight (vocab_size, d_model)``, ``pe (max_len, d_model)``.

    The exercise of notebook 05; used again in notebook 13.
    """
    cases = []
    for seed, vocab_size, d_model, batch, seq_len, max_len in _EMBEDDING_CASES:
        args = _embedding_case(seed, vocab_size, d_model, batch, seq_len, max_len)
        label = f"batch={batch}, seq_len={seq_len}, d_model={d_model}, max_len={max_len}"
        cases.append(Case(args, _token_and_position(*args), label))
    mistakes = [
        Mistake(
            _not_scaled,
            "the token rows are not scaled: multiply them by sqrt(d_model) before adding pe "
            "(Vaswani et al., 2017, section 3.4).",
        ),
        Mistake(
            _sum_scaled,
            "you scaled the sum; scale only the token embedding, then add pe unchanged.",
        ),
        Mistake(_divided, "you divided by sqrt(d_model); the paper multiplies."),
    ]
    return run_checker(
        "check_token_and_position",
        fn,
        cases,
        mistakes,
        generic_hint="look up rows with weight[tokens] (batch, seq_len, d_model) and add the first "
        "seq_len rows of pe, which broadcast over the batch.",
        diagnosis=Diagnosis(
            axes=("sequence", "position", "feature"),
            size="d_model",
            views=(
                View(
                    "the token parts (your result minus pe[:seq_len])",
                    lambda a, args: a - as_numpy(args[2])[: a.shape[-2]],
                    axes=("sequence", "position", "feature"),
                    parts=False,
                ),
                View(
                    "the position parts (your result minus the scaled token rows)",
                    lambda a, args: (
                        a - as_numpy(args[1])[as_numpy(args[0])] * args[1].shape[1] ** 0.5
                    ),
                    axes=("sequence", "position", "feature"),
                    parts=False,
                ),
            ),
        ),
    )
