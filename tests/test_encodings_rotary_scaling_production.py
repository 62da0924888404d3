"""scaled_rotary_frequencies' rules of today's models (notebook 17): Llama 3's "llama3", dynamic
NTK and LongRoPE, against hand-computed values and ``transformers``' rotary-parameter functions
for released models' settings (configurations built from values, never downloaded)."""

from __future__ import annotations

import math

import pytest
import torch
from transformers import LlamaConfig, Phi3Config
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS
from transformers.utils import logging as hf_logging

from helpers.encodings import rotary_frequencies, scaled_rotary_frequencies

hf_logging.set_verbosity_error()  # Phi-3's config notes that it reads original_max_position...


def hf_frequencies(config, rope_type: str, seq_len: int | None = None):
    """``transformers``' inverse frequencies (float32) and attention factor, as float64."""
    inv_freq, scale = ROPE_INIT_FUNCTIONS[rope_type](config, "cpu", seq_len=seq_len)
    return inv_freq.double(), scale


def assert_close_to_float32(ours: torch.Tensor, theirs: torch.Tensor) -> None:
    """``transformers`` computes in float32: equal to its round-off, 1e-6 relative."""
    assert ours.shape == theirs.shape
    torch.testing.assert_close(ours, theirs, rtol=1e-6, atol=0)


# ------------------------------------------------------------------------------------ llama3


def test_llama3_keeps_fast_pairs_divides_slow_ones_and_blends_between_by_hand():
    # d = 6, base = 100: omega = 1, 100**(-1/3), 0.01**(2/3); wavelengths 6.28, 29.2, 135.4.
    # L = 64, low 1, high 4: kept below 64 / 4 = 16, divided above 64 / 1 = 64, blended between.
    omega, scale = scaled_rotary_frequencies(6, "llama3", 8.0, 100.0, 64)
    plain = rotary_frequencies(6, 100.0)
    s = (64 / (2 * math.pi / plain[1].item()) - 1) / (4 - 1)  # the middle pair's blend
    assert 0 < s < 1 and scale == 1.0
    torch.testing.assert_close(omega[0], plain[0], rtol=0, atol=0)
    torch.testing.assert_close(omega[1], plain[1] * ((1 - s) / 8 + s), rtol=1e-15, atol=0)
    torch.testing.assert_close(omega[2], plain[2] / 8, rtol=1e-15, atol=0)
    assert omega.dtype == torch.float64 and omega.shape == (3,)


def test_llama3_blend_is_continuous_at_both_wavelength_bounds():
    # pairs whose wavelength is exactly L / high (s = 1) and L / low (s = 0)
    d, base = 64, 10000.0
    plain = rotary_frequencies(d, base)
    wavelength = 2 * math.pi / plain
    for k in (5, 20):
        for factor_name, value in (("high", 1.0), ("low", 0.0)):
            original = wavelength[k].item() * (4.0 if factor_name == "high" else 1.0)
            omega, _ = scaled_rotary_frequencies(d, "llama3", 8.0, base, round(original))
            expected = plain[k] if value == 1.0 else plain[k] / 8
            torch.testing.assert_close(omega[k], expected, rtol=2e-3, atol=0)


@pytest.mark.parametrize(
    ("model", "head_dim", "factor"),
    [("Llama 3.1 8B", 128, 8.0), ("Llama 3.2 1B", 64, 32.0), ("Llama 3.2 3B", 128, 32.0)],
)
def test_llama3_equals_transformers_for_released_settings(model, head_dim, factor):
    # the released configs: rope_theta 500000, low 1, high 4, original length 8192
    parameters = {
        "rope_type": "llama3",
        "rope_theta": 500000.0,
        "factor": factor,
        "low_freq_factor": 1.0,
        "high_freq_factor": 4.0,
        "original_max_position_embeddings": 8192,
    }
    config = LlamaConfig(
        hidden_size=head_dim * 8, num_attention_heads=8, head_dim=head_dim,
        max_position_embeddings=131072, rope_parameters=parameters,
    )  # fmt: skip
    theirs, their_scale = hf_frequencies(config, "llama3")
    omega, scale = scaled_rotary_frequencies(head_dim, "llama3", factor, 500000.0, 8192)
    assert_close_to_float32(omega, theirs)
    assert scale == their_scale == 1.0
    kept = omega == rotary_frequencies(head_dim, 500000.0)
    divided = torch.isclose(omega, rotary_frequencies(head_dim, 500000.0) / factor, rtol=1e-12)
    assert kept.any() and divided.any() and (~kept & ~divided).any(), model  # three bands


def test_llama3_with_equal_bounds_is_a_step_as_in_transformers():
    # low = high: no blend; pairs shorter than L / high kept, longer ones divided
    parameters = {
        "rope_type": "llama3", "rope_theta": 500000.0, "factor": 16.0, "low_freq_factor": 1.0,
        "high_freq_factor": 1.0, "original_max_position_embeddings": 8192,
    }  # fmt: skip
    config = LlamaConfig(hidden_size=1024, num_attention_heads=8, rope_parameters=parameters)
    theirs, _ = hf_frequencies(config, "llama3")
    omega, _ = scaled_rotary_frequencies(128, "llama3", 16.0, 500000.0, 8192,
                                         high_freq_factor=1.0)  # fmt: skip
    assert_close_to_float32(omega, theirs)
    plain = rotary_frequencies(128, 500000.0)
    assert set(torch.unique(torch.round(plain / omega, decimals=9)).tolist()) == {1.0, 16.0}


def test_llama3_with_its_wavelength_bounds_swapped_is_refused():
    with pytest.raises(ValueError, match="high_freq_factor"):
        scaled_rotary_frequencies(64, "llama3", 8.0, 10000.0, 256, low_freq_factor=4.0,
                                  high_freq_factor=1.0)  # fmt: skip


# ----------------------------------------------------------------------------------- dynamic


def test_dynamic_is_plain_rotary_up_to_the_training_length():
    plain = rotary_frequencies(32, 10000.0)
    for seq_len in (1, 100, 256):
        omega, scale = scaled_rotary_frequencies(32, "dynamic", 4.0, 10000.0, 256, seq_len=seq_len)
        torch.testing.assert_close(omega, plain, rtol=1e-15, atol=0)
        assert scale == 1.0


def test_dynamic_with_factor_1_is_ntk_with_the_length_ratio():
    # factor 1: base * (seq_len / L) ** (d / (d - 2)), NTK scaling by seq_len / L
    omega, _ = scaled_rotary_frequencies(32, "dynamic", 1.0, 10000.0, 256, seq_len=1024)
    ntk, _ = scaled_rotary_frequencies(32, "ntk", 4.0, 10000.0)
    torch.testing.assert_close(omega, ntk, rtol=1e-14, atol=0)


def test_dynamic_base_grows_with_the_current_length_by_hand():
    # factor 2 at seq_len = 2L: stretch 2 * 2 - 1 = 3, base 100 * 3 ** (4 / 2) = 900 (d = 4)
    omega, _ = scaled_rotary_frequencies(4, "dynamic", 2.0, 100.0, 50, seq_len=100)
    torch.testing.assert_close(omega, torch.tensor([1.0, 1 / 30], dtype=torch.float64))
    slower = [
        scaled_rotary_frequencies(4, "dynamic", 2.0, 100.0, 50, seq_len=n)[0][1].item()
        for n in (50, 60, 100, 400)
    ]
    assert slower == sorted(slower, reverse=True) and slower[0] > slower[-1]


@pytest.mark.parametrize(
    ("model", "head_dim", "base", "factor", "original"),
    [("InternLM2 7B", 128, 1000000.0, 2.0, 32768), ("InternLM3 8B", 128, 50000000.0, 6.0, 32768)],
)
@pytest.mark.parametrize("ratio", [0.5, 1.0, 1.5, 4.0])
def test_dynamic_equals_transformers_for_released_settings(
    model, head_dim, base, factor, original, ratio
):
    config = LlamaConfig(
        hidden_size=head_dim * 8, num_attention_heads=8, head_dim=head_dim,
        max_position_embeddings=original,
        rope_parameters={"rope_type": "dynamic", "rope_theta": base, "factor": factor},
    )  # fmt: skip
    seq_len = int(original * ratio)
    theirs, their_scale = hf_frequencies(config, "dynamic", seq_len)
    omega, scale = scaled_rotary_frequencies(
        head_dim, "dynamic", factor, base, original, seq_len=seq_len
    )
    assert_close_to_float32(omega, theirs)
    assert scale == their_scale == 1.0, model


def test_dynamic_needs_the_current_length():
    with pytest.raises(ValueError, match="seq_len"):
        scaled_rotary_frequencies(32, "dynamic", 2.0, 10000.0, 256)


# ---------------------------------------------------------------------------------- longrope

# Phi-3-mini-128k's shape: head_dim 96 (48 pairs), original length 4096, 131072 after; the
# released factors come from a search; these stand in for them (rising, as theirs do).
SHORT = [1.0 + 0.02 * k for k in range(48)]
LONG = [1.0 + 0.9 * k for k in range(48)]


def test_longrope_divides_each_pair_by_its_factor_short_then_long_by_hand():
    plain = rotary_frequencies(4, 100.0)  # 1, 0.1
    kwargs = {"short_factor": [1.0, 2.0], "long_factor": [1.5, 8.0]}
    for seq_len, factors in ((None, [1.0, 2.0]), (64, [1.0, 2.0]), (65, [1.5, 8.0])):
        omega, _ = scaled_rotary_frequencies(4, "longrope", 16.0, 100.0, 64, seq_len=seq_len,
                                             **kwargs)  # fmt: skip
        torch.testing.assert_close(omega, plain / torch.tensor(factors, dtype=torch.float64))


def test_longrope_attention_scale_for_phi3_is_sqrt_17_over_12():
    # factor 131072 / 4096 = 32 = 2**5, L = 4096 = 2**12: sqrt(1 + ln 32 / ln 4096) = sqrt(17/12)
    _, scale = scaled_rotary_frequencies(96, "longrope", 32.0, 10000.0, 4096, short_factor=SHORT,
                                         long_factor=LONG)  # fmt: skip
    assert scale == pytest.approx(math.sqrt(17 / 12), rel=1e-14)
    _, unscaled = scaled_rotary_frequencies(96, "longrope", 1.0, 10000.0, 4096,
                                            short_factor=SHORT, long_factor=LONG)  # fmt: skip
    assert unscaled == 1.0


@pytest.mark.parametrize("seq_len", [None, 100, 4096, 4097, 131072])
def test_longrope_equals_transformers_for_phi3_mini_128k_settings(seq_len):
    config = Phi3Config(
        hidden_size=3072, num_attention_heads=32, max_position_embeddings=131072,
        rope_parameters={
            "rope_type": "longrope", "rope_theta": 10000.0, "short_factor": SHORT,
            "long_factor": LONG, "original_max_position_embeddings": 4096,
        },
    )  # fmt: skip
    theirs, their_scale = hf_frequencies(config, "longrope", seq_len)
    omega, scale = scaled_rotary_frequencies(
        96, "longrope", 32.0, 10000.0, 4096, seq_len=seq_len, short_factor=SHORT, long_factor=LONG
    )
    assert_close_to_float32(omega, theirs)
    assert scale == pytest.approx(their_scale, rel=1e-12)


def test_phi3_released_factors_shape_and_transformers():
    from helpers.encodings import PHI3_LONGROPE_FACTORS

    short, long = PHI3_LONGROPE_FACTORS["short_factor"], PHI3_LONGROPE_FACTORS["long_factor"]
    assert len(short) == len(long) == 48  # head width 96
    assert list(short) == sorted(short) and list(long) == sorted(long)  # rising with k
    assert (short[0], short[-1]) == (1.05, 3.049999999999997)
    assert long[0] == pytest.approx(1.03) and long[-1] == pytest.approx(64.81)
    config = Phi3Config(
        hidden_size=3072, num_attention_heads=32, max_position_embeddings=131072,
        rope_parameters={"rope_type": "longrope", "rope_theta": 10000.0,
                         "short_factor": list(short), "long_factor": list(long),
                         "original_max_position_embeddings": 4096},
    )  # fmt: skip
    for seq_len in (4096, 4097):
        theirs, _ = hf_frequencies(config, "longrope", seq_len)
        omega, _ = scaled_rotary_frequencies(96, "longrope", 32.0, 10000.0, 4096, seq_len=seq_len,
                                             short_factor=short, long_factor=long)  # fmt: skip
        assert_close_to_float32(omega, theirs)
    # the slowest pair is stretched about 65 times beyond L, about 3 times within it
    plain = rotary_frequencies(96, 10000.0)
    assert float(plain[-1] / omega[-1]) == pytest.approx(64.81, rel=1e-6)


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"long_factor": LONG}, ValueError, "short_factor"),
        ({"short_factor": SHORT}, ValueError, "long_factor"),
        ({"short_factor": SHORT[:-1], "long_factor": LONG}, ValueError, "48"),
        ({"short_factor": SHORT, "long_factor": [0.0] * 48}, ValueError, "positive"),
        ({"short_factor": "1.0", "long_factor": LONG}, TypeError, "short_factor"),
    ],
)
def test_longrope_factors_are_checked(kwargs, error, words):
    with pytest.raises(error, match=words):
        scaled_rotary_frequencies(96, "longrope", 32.0, 10000.0, 4096, **kwargs)
