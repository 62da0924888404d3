"""Unit tests of helpers.encodings.sinusoidal: hand-computed values, identities, bad inputs."""

import math

import numpy as np
import pytest
import torch

from helpers.encodings import (
    SinusoidalPositionalEncoding,
    frequencies,
    offset_matrix,
    sinusoidal_encoding,
)


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
    np.testing.assert_allclose(omega, [1.0, 10000**-0.25, 10000**-0.5, 10000**-0.75])
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


# --- SinusoidalPositionalEncoding ------------------------------------------------------------


def test_module_adds_the_table_to_its_input():
    module = SinusoidalPositionalEncoding(d_model=8, max_len=20)
    x = torch.randn(3, 11, 8)
    expected = x + torch.tensor(sinusoidal_encoding(11, 8), dtype=torch.float32)
    torch.testing.assert_close(module(x), expected)
    # On zeros it returns the table itself, the same for every batch element.
    out = module(torch.zeros(2, 4, 8))
    torch.testing.assert_close(out[1], out[0])
    torch.testing.assert_close(out[0, 1, :2], torch.tensor([math.sin(1), math.cos(1)]))


def test_module_buffer_is_registered_not_persistent_and_follows_dtype():
    module = SinusoidalPositionalEncoding(d_model=6, max_len=10, base=100.0)
    assert "pe" in dict(module.named_buffers())
    assert "pe" not in module.state_dict()  # recomputable, so not saved
    assert list(module.parameters()) == []  # nothing to train
    module = module.double()
    assert module.pe.dtype == torch.float64
    np.testing.assert_allclose(module.pe.numpy(), sinusoidal_encoding(10, 6, 100.0), atol=1e-15)
    out = module(torch.zeros(1, 10, 6, dtype=torch.float64))
    assert out.dtype == torch.float64
    # float32 input keeps its dtype even though the table is now float64
    assert module(torch.zeros(1, 3, 6)).dtype == torch.float32


@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a GPU")
def test_module_follows_to_device():
    module = SinusoidalPositionalEncoding(8, 16).to("cuda")
    assert module.pe.device.type == "cuda"
    assert module(torch.zeros(1, 4, 8, device="cuda")).device.type == "cuda"


def test_module_dropout_applies_to_the_sum_in_training_only():
    torch.manual_seed(0)
    module = SinusoidalPositionalEncoding(d_model=8, max_len=8, dropout=0.5)
    x = torch.ones(1, 8, 8)
    out = module.train()(x)
    kept = out != 0
    assert 0 < kept.sum() < out.numel()
    # surviving entries are (x + PE) / (1 - p): dropout of the sum, not of x alone
    total = x + module.pe
    torch.testing.assert_close(out[kept], (total * 2.0)[kept])
    torch.testing.assert_close(module.eval()(x), total)


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"d_model": 7}, ValueError, "d_model"),
        ({"d_model": 8, "max_len": 0}, ValueError, "max_len"),
        ({"d_model": 8, "base": -1.0}, ValueError, "base"),
        ({"d_model": 8, "dropout": 1.0}, ValueError, "dropout"),
        ({"d_model": 8, "dropout": "high"}, TypeError, "dropout"),
    ],
)
def test_module_bad_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        SinusoidalPositionalEncoding(**kwargs)


@pytest.mark.parametrize(
    ("x", "error", "name"),
    [
        (torch.zeros(4, 8), ValueError, "x"),  # missing batch dimension
        (torch.zeros(1, 4, 6), ValueError, "d_model"),  # wrong width
        (torch.zeros(1, 4, 8, dtype=torch.long), TypeError, "x"),
        (np.zeros((1, 4, 8)), TypeError, "x"),
    ],
)
def test_module_bad_inputs(x, error, name):
    with pytest.raises(error, match=name):
        SinusoidalPositionalEncoding(8, 16)(x)


# --- offset_matrix ---------------------------------------------------------------------------


def test_offset_matrix_hand_computed_d_model_2():
    # One pair, omega_0 = 1: the block [[cos phi, sin phi], [-sin phi, cos phi]].
    phi = 0.5
    expected = [[math.cos(phi), math.sin(phi)], [-math.sin(phi), math.cos(phi)]]
    np.testing.assert_allclose(offset_matrix(phi, 2), expected, atol=1e-15)


def test_offset_matrix_is_block_diagonal_with_one_block_per_pair():
    m = offset_matrix(3, 8)
    mask = np.kron(np.eye(4), np.ones((2, 2))).astype(bool)
    assert np.all(m[~mask] == 0.0)
    omega_1 = 10000 ** (-2 / 8)
    np.testing.assert_allclose(
        m[2:4, 2:4],
        [
            [math.cos(3 * omega_1), math.sin(3 * omega_1)],
            [-math.sin(3 * omega_1), math.cos(3 * omega_1)],
        ],
    )


@pytest.mark.parametrize("phi", [0, 1, 5, -3, 17, -40, 2.5])
@pytest.mark.parametrize(
    ("d_model", "base"), [(4, 10000.0), (16, 10000.0), (128, 10000.0), (6, 50.0)]
)
def test_offset_matrix_shifts_every_position(phi, d_model, base):
    t = np.arange(-50, 200, dtype=np.float64)
    omega = frequencies(d_model, base)
    pe = np.empty((t.size, d_model))  # the table at arbitrary (also negative) positions
    pe[:, 0::2], pe[:, 1::2] = np.sin(np.outer(t, omega)), np.cos(np.outer(t, omega))
    shifted = np.empty_like(pe)
    shifted[:, 0::2], shifted[:, 1::2] = (
        np.sin(np.outer(t + phi, omega)),
        np.cos(np.outer(t + phi, omega)),
    )
    m = offset_matrix(phi, d_model, base)
    np.testing.assert_allclose(pe @ m.T, shifted, atol=1e-9)  # row-wise M @ PE[t]


def test_offset_matrix_with_the_table():
    pe = sinusoidal_encoding(100, 32)
    m = offset_matrix(7, 32)
    np.testing.assert_allclose((m @ pe[:93].T).T, pe[7:], atol=1e-9)


def test_offset_matrix_orthogonal_and_composes():
    a, b = offset_matrix(4, 16), offset_matrix(-9, 16)
    np.testing.assert_allclose(a @ a.T, np.eye(16), atol=1e-12)
    np.testing.assert_allclose(a @ b, offset_matrix(-5, 16), atol=1e-12)
    np.testing.assert_allclose(offset_matrix(0, 16), np.eye(16), atol=0)
    np.testing.assert_allclose(offset_matrix(-4, 16), a.T, atol=1e-12)  # inverse = transpose


@pytest.mark.parametrize(
    ("args", "error", "name"),
    [
        ((1, 7), ValueError, "d_model"),
        ((1, 8, 0.0), ValueError, "base"),
        (("1", 8), TypeError, "offset"),
        ((True, 8), TypeError, "offset"),
        ((float("nan"), 8), ValueError, "offset"),
        ((float("inf"), 8), ValueError, "offset"),
    ],
)
def test_offset_matrix_bad_arguments(args, error, name):
    with pytest.raises(error, match=name):
        offset_matrix(*args)
