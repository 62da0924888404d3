"""RoPE stays accurate where float32 would not: frequencies and angles at positions around 1e5
match a float64 reference written here, and position tensors with batch dimensions (more than
one dimension) rotate each row by its own positions, in both layouts."""

import math

import numpy as np
import pytest
import torch

from helpers.encodings import apply_rotary, rotary_frequencies


def reference_frequencies(d: int, base: float) -> np.ndarray:
    return np.array([base ** (-2.0 * k / d) for k in range(d // 2)])  # Python floats: float64


@pytest.mark.parametrize(("d", "base"), [(64, 10000.0), (10, 500000.0)])
def test_frequencies_are_float64_accurate(d, base):
    omega = rotary_frequencies(d, base)
    assert omega.dtype == torch.float64
    np.testing.assert_allclose(omega.numpy(), reference_frequencies(d, base), rtol=1e-15)


def reference_rotation(x: np.ndarray, positions: np.ndarray, base: float) -> np.ndarray:
    """Interleaved pairs ``(2k, 2k+1)`` of ``x (L, d)`` turned by ``t * omega_k``, in float64."""
    out = np.empty_like(x)
    omega = reference_frequencies(x.shape[-1], base)
    for row, t in enumerate(positions):
        for k, w in enumerate(omega):
            c, s = math.cos(t * w), math.sin(t * w)
            a, b = x[row, 2 * k], x[row, 2 * k + 1]
            out[row, 2 * k], out[row, 2 * k + 1] = a * c - b * s, a * s + b * c
    return out


def test_angles_at_positions_near_1e5_match_float64():
    """float32 exponents would put the angle t * omega_k off by about 1e5 * 1e-7 = 1e-2 rad."""
    x = torch.randn(4, 16, dtype=torch.float64, generator=torch.Generator().manual_seed(0))
    positions = [99_997, 100_000, 100_003, 123_457]
    rotated = apply_rotary(x, positions, base=10000.0)
    expected = reference_rotation(x.numpy(), np.array(positions), 10000.0)
    np.testing.assert_allclose(rotated.numpy(), expected, atol=1e-10)


@pytest.mark.parametrize("layout", ["interleaved", "half"])
@pytest.mark.parametrize("batch_shape", [(3,), (2, 3)])
def test_batched_positions_rotate_each_row_by_its_own(layout, batch_shape):
    """Positions ``batch_shape + (L,)`` against ``x (batch_shape..., L, d)``: every batch row
    equals the rotation with its own 1-D positions."""
    generator = torch.Generator().manual_seed(1)
    x = torch.randn(*batch_shape, 5, 8, dtype=torch.float64, generator=generator)
    positions = torch.randint(0, 50, (*batch_shape, 5), generator=generator)
    rotated = apply_rotary(x, positions, layout=layout)
    assert rotated.shape == x.shape
    for index in np.ndindex(*batch_shape):
        expected = apply_rotary(x[index], positions[index], layout=layout)
        torch.testing.assert_close(rotated[index], expected)
