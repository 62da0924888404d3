"""scaled_rotary_frequencies: position interpolation, NTK-aware scaling and YaRN (notebook 15),
against hand-derived values and the authors' own formulation."""

from __future__ import annotations

import math

import pytest
import torch

from helpers.encodings import (
    RotaryPositionalAttention,
    apply_rotary,
    rotary_frequencies,
    scaled_rotary_frequencies,
)

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


# ------------------------------------------------------------ in attention and in the models


def test_apply_rotary_with_the_default_frequencies_given_explicitly_changes_nothing():
    x = torch.randn(2, 5, 8, dtype=torch.float64)
    given = apply_rotary(x, frequencies=rotary_frequencies(8))
    torch.testing.assert_close(given, apply_rotary(x), rtol=0, atol=0)


def test_apply_rotary_with_interpolated_frequencies_equals_squeezed_positions():
    x = torch.randn(1, 6, 8, dtype=torch.float64)
    omega, _ = scaled_rotary_frequencies(8, "linear", 4.0)
    positions = torch.arange(6.0)
    torch.testing.assert_close(
        apply_rotary(x, positions, frequencies=omega), apply_rotary(x, positions / 4)
    )


def test_apply_rotary_refuses_frequencies_of_the_wrong_width():
    with pytest.raises(ValueError, match=r"frequencies must have shape \(d/2,\) = \(4,\)"):
        apply_rotary(torch.zeros(1, 2, 8), frequencies=torch.ones(3))


def rope_model(seed=0):
    from helpers import seed_everything
    from helpers.transformer import DecoderOnlyTransformer

    seed_everything(seed)
    return DecoderOnlyTransformer(
        11, d_model=32, num_heads=2, num_layers=2, d_ff=32, max_len=64, positional="rotary"
    ).eval()


def test_set_rotary_scaling_reaches_every_layer_and_can_be_undone():
    from helpers.transformer import set_rotary_scaling

    model = rope_model()
    x = torch.randint(0, 11, (2, 20), generator=torch.Generator().manual_seed(0))
    plain = model(x)
    omega, scale = set_rotary_scaling(model, "yarn", 4.0, original_max_len=16)
    expected, expected_scale = scaled_rotary_frequencies(16, "yarn", 4.0, original_max_len=16)
    torch.testing.assert_close(omega, expected)
    assert scale == expected_scale
    for layer in model.layers:
        torch.testing.assert_close(layer.self_attn.position.frequencies, expected)
        assert layer.self_attn.position.attention_scale == expected_scale
    scaled = model(x)
    assert not torch.allclose(scaled, plain, atol=1e-4)
    assert set_rotary_scaling(model, None) is None
    torch.testing.assert_close(model(x), plain)


def test_linear_scaling_of_a_model_equals_feeding_it_squeezed_positions():
    """Interpolation by 2 at position 2t is the unscaled model at position t: check on q . k."""
    from helpers.attention import MultiHeadAttention

    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 1, position=RotaryPositionalAttention).eval()
    q = torch.randn(1, 1, 4, 8)
    omega, _ = scaled_rotary_frequencies(8, "linear", 2.0)
    rotated_scaled = apply_rotary(q, torch.arange(0.0, 8.0, 2.0), frequencies=omega)
    rotated_plain = apply_rotary(q, torch.arange(4.0))
    torch.testing.assert_close(rotated_scaled, rotated_plain)
    attention.position.set_frequencies(omega)
    torch.testing.assert_close(attention.position.frequencies, omega)


def test_yarn_temperature_multiplies_queries_and_keys():
    from helpers.attention import MultiHeadAttention

    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 1, position=RotaryPositionalAttention).eval()
    x = torch.randn(1, 3, 8)
    _, plain = attention(x, x, x)
    attention.position.set_frequencies(None, attention_scale=2.0)
    _, hotter = attention(x, x, x)
    d_k = 8
    q = apply_rotary(attention.q_proj(x), base=attention.position.base)
    k = apply_rotary(attention.k_proj(x), base=attention.position.base)
    expected = torch.softmax(4.0 * q @ k.transpose(-2, -1) / d_k**0.5, dim=-1)[:, None]
    torch.testing.assert_close(hotter, expected)
    assert not torch.allclose(hotter, plain)


def test_rotary_scaling_errors():
    from helpers.transformer import DecoderOnlyTransformer, set_rotary_scaling

    with pytest.raises(ValueError, match=r"\(d_k/2,\) = \(2,\)"):
        RotaryPositionalAttention(4).set_frequencies(torch.ones(3))
    with pytest.raises(ValueError, match="attention_scale"):
        RotaryPositionalAttention(4).set_frequencies(None, 0.0)
    with pytest.raises(ValueError, match="positional='rotary'"):
        set_rotary_scaling(DecoderOnlyTransformer(11, d_model=8, num_heads=2), "linear", 2.0)


@pytest.mark.parametrize("method", ["linear", "ntk", "yarn"])
def test_cached_generation_equals_uncached_with_scaled_rotary(method):
    from helpers.transformer import generate, set_rotary_scaling

    model = rope_model()
    set_rotary_scaling(model, method, 4.0, original_max_len=16)
    prompt = torch.randint(0, 11, (2, 5), generator=torch.Generator().manual_seed(1))
    assert torch.equal(generate(model, prompt, 20), generate(model, prompt, 20, use_cache=False))
