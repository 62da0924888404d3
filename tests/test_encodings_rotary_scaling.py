"""scaled_rotary_frequencies: position interpolation, NTK-aware scaling and YaRN (notebook 15),
against hand-derived values and the authors' own formulation."""

from __future__ import annotations

import math

import pytest
import torch

from helpers.encodings import apply_rotary, rotary_frequencies, scaled_rotary_frequencies

D, BASE = 64, 10000.0


def yarn_reference(d, base, factor, original_max_len, beta_fast=32.0, beta_slow=1.0):
    """YaRN's frequencies written as in the authors' code (jquesnelle/yarn, and Hugging Face's
    ``_compute_yarn_parameters``): a mask that is 1 where the original frequency is kept."""

    def correction_dim(rotations):
        return d * math.log(original_max_len / (rotations * 2 * math.pi)) / (2 * math.log(base))

    low = max(math.floor(correction_dim(beta_fast)), 0)
    high = min(math.ceil(correction_dim(beta_slow)), d - 1)
    if low == high:
        high += 0.001
    pos_freqs = base ** (torch.arange(0, d, 2, dtype=torch.float64) / d)
    extrapolation, interpolation = 1.0 / pos_freqs, 1.0 / (factor * pos_freqs)
    ramp = ((torch.arange(d // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
    keep = 1 - ramp
    return interpolation * (1 - keep) + extrapolation * keep, 0.1 * math.log(factor) + 1


def test_linear_interpolation_divides_every_frequency_by_the_factor():
    omega, scale = scaled_rotary_frequencies(D, "linear", 4.0)
    torch.testing.assert_close(omega, rotary_frequencies(D) / 4, rtol=0, atol=0)
    assert scale == 1.0 and omega.dtype == torch.float64 and omega.shape == (D // 2,)


def test_linear_interpolation_at_position_4t_rotates_like_position_t_unscaled():
    omega, _ = scaled_rotary_frequencies(8, "linear", 4.0)
    x = torch.randn(1, 3, 8, dtype=torch.float64)
    stretched = apply_rotary(x, torch.tensor([0.0, 4.0, 40.0]))  # with the scaled angles below
    angles = torch.tensor([0.0, 4.0, 40.0])[:, None] * omega  # = positions 0, 1, 10 unscaled
    torch.testing.assert_close(
        angles, torch.tensor([0.0, 1.0, 10.0])[:, None] * rotary_frequencies(8)
    )
    assert not torch.allclose(stretched, apply_rotary(x, torch.tensor([0.0, 1.0, 10.0])))


def test_ntk_keeps_the_fastest_pair_and_interpolates_the_slowest_exactly():
    factor = 8.0
    omega, scale = scaled_rotary_frequencies(D, "ntk", factor)
    plain = rotary_frequencies(D)
    assert scale == 1.0
    assert omega[0].item() == 1.0  # pair 0 turns by t radians whatever the base
    torch.testing.assert_close(omega[-1], plain[-1] / factor, rtol=1e-12, atol=0)
    ratio = plain / omega  # how much each pair is interpolated: 1 -> factor, geometrically
    expected = factor ** (torch.arange(D // 2, dtype=torch.float64) * 2 / (D - 2))
    torch.testing.assert_close(ratio, expected, rtol=1e-12, atol=0)


def test_ntk_equals_a_larger_base():
    omega, _ = scaled_rotary_frequencies(16, "ntk", 2.0, base=500.0)
    torch.testing.assert_close(omega, rotary_frequencies(16, 500.0 * 2.0 ** (16 / 14)))


@pytest.mark.parametrize("factor", [1.5, 4.0, 16.0])
@pytest.mark.parametrize(
    ("d", "base", "length"),
    [(64, 10000.0, 256), (128, 10000.0, 4096), (32, 500000.0, 128), (8, 10000.0, 64)],
)
def test_yarn_matches_the_authors_formulation(d, base, length, factor):
    omega, scale = scaled_rotary_frequencies(d, "yarn", factor, base, original_max_len=length)
    expected, expected_scale = yarn_reference(d, base, factor, length)
    torch.testing.assert_close(omega, expected, rtol=1e-12, atol=0)
    assert scale == pytest.approx(expected_scale, rel=1e-15)


def test_yarn_keeps_fast_pairs_interpolates_slow_ones_and_ramps_between():
    length, factor = 4096, 4.0
    omega, scale = scaled_rotary_frequencies(D, "yarn", factor, original_max_len=length)
    plain = rotary_frequencies(D)
    rotations = length * plain / (2 * math.pi)  # turns of each pair within the training length
    kept, squeezed = rotations >= 32 * 1.3, rotations <= 1 / 1.3  # clear of the ramp's edges
    assert kept.any() and squeezed.any()
    torch.testing.assert_close(omega[kept], plain[kept], rtol=0, atol=0)
    torch.testing.assert_close(omega[squeezed], plain[squeezed] / factor, rtol=1e-12, atol=0)
    ratio = plain / omega  # 1 for kept pairs, rising to the factor, never outside [1, factor]
    assert torch.all(ratio[1:] >= ratio[:-1] - 1e-12)
    assert ratio.min() >= 1 - 1e-12 and ratio.max() <= factor + 1e-12
    assert scale == pytest.approx(0.1 * math.log(4.0) + 1)  # 1.1386...


def test_yarn_betas_move_the_ramp():
    default, _ = scaled_rotary_frequencies(D, "yarn", 4.0, original_max_len=4096)
    wider, _ = scaled_rotary_frequencies(D, "yarn", 4.0, original_max_len=4096, beta_fast=64.0)
    narrower, _ = scaled_rotary_frequencies(D, "yarn", 4.0, original_max_len=4096, beta_slow=2.0)
    assert not torch.equal(default, wider) and not torch.equal(default, narrower)
    assert torch.all(wider <= default) and torch.all(narrower <= default)


def test_factor_one_changes_nothing():
    for method in ("linear", "ntk", "yarn"):
        omega, scale = scaled_rotary_frequencies(D, method, 1.0, original_max_len=128)
        torch.testing.assert_close(omega, rotary_frequencies(D), rtol=1e-15, atol=0)
        assert scale == 1.0
