"""RoPE stays accurate where float32 would not: frequencies and angles at positions around 1e5
match a float64 reference written here, and position tensors with batch dimensions (more than
one dimension) rotate each row by its own positions, in both layouts. Frequencies swapped in for
long contexts turn queries and keys alike, and are never saved with the model."""

import math

import numpy as np
import pytest
import torch

from helpers import seed_everything
from helpers.encodings import (
    RotaryPositionalAttention,
    apply_rotary,
    rotary_frequencies,
    scaled_rotary_frequencies,
)
from helpers.encodings.rotary_scaling import _yarn_correction_range
from helpers.transformer import DecoderOnlyTransformer, set_rotary_scaling


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


def test_set_frequencies_turns_queries_and_keys_alike():
    """omega = (pi/2, pi) at position 1: pair 0 turns a quarter, (a, b) -> (-b, a); pair 1 a
    half, (a, b) -> (-a, -b). Both queries and keys, or q . k would not depend on n - m only."""
    module = RotaryPositionalAttention(4)
    module.set_frequencies(torch.tensor([math.pi / 2, math.pi], dtype=torch.float64))
    x = torch.tensor([[[1.0, 2.0, 3.0, 4.0]]])  # (1, L=1, d_k=4)
    q, k = module.rotate(x, 2 * x, offset=1)  # the one row sits at position 1
    expected = torch.tensor([[[-2.0, 1.0, -3.0, -4.0]]])
    torch.testing.assert_close(q, expected)
    torch.testing.assert_close(k, 2 * expected)


def test_scaled_frequencies_are_not_saved_with_the_model():
    """set_rotary_scaling is applied after loading (notebook 15): a checkpoint of a scaled model
    has the keys of a plain one and loads, strictly, into a fresh model."""
    seed_everything(0)
    model = DecoderOnlyTransformer(11, d_model=8, num_heads=2, num_layers=1, positional="rotary")
    plain_keys = set(model.state_dict())
    set_rotary_scaling(model, "linear", 2.0)
    assert set(model.state_dict()) == plain_keys
    fresh = DecoderOnlyTransformer(11, d_model=8, num_heads=2, num_layers=1, positional="rotary")
    fresh.load_state_dict(model.state_dict())  # strict: no unexpected frequencies


@pytest.mark.parametrize(
    ("d", "base", "original_max_len", "step", "kept"),
    [
        # 4 positions: fewer than one rotation of pair 0, so low = high = 0: only pair 0 kept
        (8, 10000.0, 4, 0, [1.0, 0.0, 0.0, 0.0]),
        # base 2, 700 positions: low = high = d - 1 = 3 (clipped): every pair kept
        (4, 2.0, 700, 3, [1.0, 1.0]),
    ],
)
def test_yarn_with_a_zero_width_ramp_is_a_step(d, base, original_max_len, step, kept):
    """low == high: pairs k <= low keep omega_k, pairs above are divided by the factor."""
    assert _yarn_correction_range(d, base, original_max_len, 32.0, 1.0) == (step, step)
    omega, _ = scaled_rotary_frequencies(d, "yarn", 4.0, base, original_max_len)
    keep = torch.tensor(kept, dtype=torch.float64)
    expected = rotary_frequencies(d, base) * (keep + (1 - keep) / 4.0)
    torch.testing.assert_close(omega, expected)


def test_set_rotary_scaling_passes_yarn_options_on():
    """beta_fast moves YaRN's ramp (low = 2 at 32 rotations, 3 at 8, for d_k = 16 and 4096
    positions): the model gets the frequencies of the options it was given."""
    model = DecoderOnlyTransformer(11, d_model=32, num_heads=2, num_layers=1, positional="rotary")
    omega, _ = set_rotary_scaling(model, "yarn", 4.0, original_max_len=4096, beta_fast=8.0)
    expected, _ = scaled_rotary_frequencies(16, "yarn", 4.0, original_max_len=4096, beta_fast=8.0)
    default, _ = scaled_rotary_frequencies(16, "yarn", 4.0, original_max_len=4096)
    assert not torch.allclose(expected, default)
    torch.testing.assert_close(omega, expected)
    torch.testing.assert_close(model.layers[0].self_attn.position.frequencies, expected)
