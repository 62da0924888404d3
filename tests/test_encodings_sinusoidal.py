"""Unit tests of helpers.encodings.sinusoidal: hand-computed values, identities, bad inputs."""

import math

import numpy as np
import pytest

from helpers.encodings import frequencies, sinusoidal_encoding


def test_hand_computed_table_d_model_4():
    # d_model = 4: omega_0 = 1, omega_1 = 1 / 10000**(2/4) = 0.01.
    expected = np.array(
        [
            [0.0, 1.0, 0.0, 1.0],
            [math.sin(1), math.cos(1), math.sin(0.01), math.cos(0.01)],
            [math.sin(2), math.cos(2), math.sin(0.02), math.cos(0.02)],
        ]
    )
    np.testing.assert_allclose(sinusoidal_encoding(3, 4), expected, atol=1e-15)
    # The same numbers written out to 4 decimals, as in notebook 03's worked table.
    np.testing.assert_allclose(
        sinusoidal_encoding(3, 4)[2], [0.9093, -0.4161, 0.0200, 0.9998], atol=5e-5
    )


def test_row_zero_is_sin0_cos0():
    pe = sinusoidal_encoding(5, 10)
    np.testing.assert_array_equal(pe[0], np.tile([0.0, 1.0], 5))


def test_pairs_share_frequency_pair_index_not_dimension_index():
    omega = frequencies(8)
    np.testing.assert_allclose(omega, [1.0, 10000 ** -0.25, 10000 ** -0.5, 10000 ** -0.75])
    pe = sinusoidal_encoding(20, 8)
    # sin^2 + cos^2 = 1 inside every pair only if the pair shares its frequency.
    np.testing.assert_allclose(pe[:, 0::2] ** 2 + pe[:, 1::2] ** 2, 1.0, atol=1e-12)


def test_shape_dtype_range_and_empty_table():
    pe = sinusoidal_encoding(50, 128)
    assert pe.shape == (50, 128) and pe.dtype == np.float64
    assert np.all(np.abs(pe) <= 1.0)
    assert sinusoidal_encoding(0, 8).shape == (0, 8)


def test_base_changes_frequencies():
    np.testing.assert_allclose(sinusoidal_encoding(2, 4, base=100.0)[1, 2], math.sin(0.1))


@pytest.mark.parametrize(
    ("args", "error", "names"),
    [
        ((10, 7), ValueError, "d_model"),
        ((10, 0), ValueError, "d_model"),
        ((10, -4), ValueError, "d_model"),
        ((-1, 8), ValueError, "num_positions"),
        ((10, 8, 0.0), ValueError, "base"),
        ((10, 8, -2.0), ValueError, "base"),
        ((10.0, 8), TypeError, "num_positions"),
        ((10, 8.0), TypeError, "d_model"),
        ((10, True), TypeError, "d_model"),
        ((10, 8, "big"), TypeError, "base"),
    ],
)
def test_bad_arguments(args, error, names):
    with pytest.raises(error, match=names):
        sinusoidal_encoding(*args)
