"""Unit tests of helpers.encodings.sinusoidal_2d: which half encodes what, hand values, bad inputs."""

import math

import numpy as np
import pytest

from helpers.encodings import sinusoidal_encoding, sinusoidal_encoding_2d


def test_shape_dtype():
    pe = sinusoidal_encoding_2d(3, 5, 8)
    assert pe.shape == (3, 5, 8) and pe.dtype == np.float64


def test_first_half_encodes_the_row_second_half_the_column():
    height, width, d_model = 4, 6, 16
    pe = sinusoidal_encoding_2d(height, width, d_model)
    rows, cols = sinusoidal_encoding(height, 8), sinusoidal_encoding(width, 8)
    for r in range(height):
        for c in range(width):
            np.testing.assert_array_equal(pe[r, c, :8], rows[r])
            np.testing.assert_array_equal(pe[r, c, 8:], cols[c])
    # Same row: identical first halves; same column: identical second halves.
    assert np.array_equal(pe[2, 0, :8], pe[2, 5, :8]) and not np.array_equal(
        pe[2, 0, 8:], pe[2, 5, 8:]
    )
    assert np.array_equal(pe[0, 3, 8:], pe[3, 3, 8:]) and not np.array_equal(
        pe[0, 3, :8], pe[3, 3, :8]
    )


def test_hand_values_d_model_4():
    # d_model = 4: each half is a 1-D encoding of width 2, i.e. (sin t, cos t).
    pe = sinusoidal_encoding_2d(3, 2, 4)
    np.testing.assert_allclose(pe[2, 1], [math.sin(2), math.cos(2), math.sin(1), math.cos(1)])
    np.testing.assert_allclose(pe[0, 0], [0.0, 1.0, 0.0, 1.0])


def test_not_square_grids_keep_axes_apart():
    # A 2 x 7 grid: the row half has only 2 distinct values, the column half 7.
    pe = sinusoidal_encoding_2d(2, 7, 8)
    assert len({tuple(v) for v in pe[..., :4].reshape(-1, 4)}) == 2
    assert len({tuple(v) for v in pe[..., 4:].reshape(-1, 4)}) == 7


def test_base():
    np.testing.assert_allclose(sinusoidal_encoding_2d(2, 2, 8, base=100.0)[1, 0, 2], math.sin(0.1))


@pytest.mark.parametrize(
    ("args", "error", "name"),
    [
        ((4, 4, 6), ValueError, "d_model"),
        ((4, 4, 2), ValueError, "d_model"),
        ((4, 4, 0), ValueError, "d_model"),
        ((0, 4, 8), ValueError, "height"),
        ((4, 0, 8), ValueError, "width"),
        ((4.0, 4, 8), TypeError, "height"),
        ((4, 4, 8, -1.0), ValueError, "base"),
    ],
)
def test_bad_arguments(args, error, name):
    with pytest.raises(error, match=name):
        sinusoidal_encoding_2d(*args)
