"""Partial rotation (GPT-NeoX's ``rotary_dim``) and p-RoPE against hand values and ``transformers``.

``transformers`` 5.23.0 is the reference: GPT-NeoX's rotary embedding and ``apply_rotary_pos_emb``
for ``partial_rotary_factor``, and ``modeling_rope_utils``' ``"proportional"`` rope type for
p-RoPE. Only configuration classes and functions are used, never a download.
"""

from __future__ import annotations

import math

import pytest
import torch

from helpers.encodings import (
    RotaryPositionalAttention,
    apply_rotary,
    p_rope_frequencies,
    partial_rotary_frequencies,
    rotary_frequencies,
)

transformers = pytest.importorskip("transformers")
from transformers import GPTNeoXConfig, LlamaConfig  # noqa: E402
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402
from transformers.models.gpt_neox import modeling_gpt_neox as neox  # noqa: E402


def _neox_reference(
    x: torch.Tensor, positions: torch.Tensor, head_dim: int, factor: float, base: float
):
    config = GPTNeoXConfig(
        hidden_size=head_dim * 2,
        num_attention_heads=2,
        rope_parameters={
            "rope_type": "default",
            "rope_theta": base,
            "partial_rotary_factor": factor,
        },
    )
    emb = neox.GPTNeoXRotaryEmbedding(config)
    cos, sin = emb(x, positions[None])  # (1, L, rotary_dim)
    q, _ = neox.apply_rotary_pos_emb(x[None, None], x[None, None], cos, sin)
    return q[0, 0], int(head_dim * factor)


@pytest.mark.parametrize(
    ("head_dim", "factor", "base"),
    [
        (16, 0.25, 10000.0),
        (32, 0.5, 10000.0),
        (64, 0.25, 10000.0),
        (40, 0.4, 500000.0),
        (12, 1.0, 100.0),
    ],
)
def test_half_layout_partial_rotation_equals_gpt_neox(head_dim, factor, base):
    torch.manual_seed(head_dim)
    x = torch.randn(9, head_dim)
    positions = torch.tensor([0, 1, 2, 5, 17, 100, 513, 2047, 4095])
    expected, rotary_dim = _neox_reference(x, positions, head_dim, factor, base)
    ours = apply_rotary(x, positions, base=base, layout="half", rotary_dim=rotary_dim)
    torch.testing.assert_close(ours, expected, atol=2e-3, rtol=1e-4)  # transformers: float32 angles
    torch.testing.assert_close(ours[:, rotary_dim:], x[:, rotary_dim:], atol=0, rtol=0)


def test_partial_rotation_by_hand():
    # d = 6, rotary_dim = 4, half layout: pairs (0, 2) and (1, 3) turn with 1 and base**(-1/2).
    x = torch.arange(1.0, 7.0, dtype=torch.float64)[None]  # one row at position t = 1
    out = apply_rotary(x, [1], base=100.0, layout="half", rotary_dim=4)[0]
    c0, s0, c1, s1 = math.cos(1), math.sin(1), math.cos(0.1), math.sin(0.1)
    expected = [1 * c0 - 3 * s0, 2 * c1 - 4 * s1, 1 * s0 + 3 * c0, 2 * s1 + 4 * c1, 5, 6]
    torch.testing.assert_close(out, torch.tensor(expected, dtype=torch.float64))
    # interleaved: pairs (0, 1) and (2, 3)
    out = apply_rotary(x, [1], base=100.0, layout="interleaved", rotary_dim=4)[0]
    expected = [1 * c0 - 2 * s0, 1 * s0 + 2 * c0, 3 * c1 - 4 * s1, 3 * s1 + 4 * c1, 5, 6]
    torch.testing.assert_close(out, torch.tensor(expected, dtype=torch.float64))


def test_interleaved_partial_equals_zero_frequencies():
    torch.manual_seed(0)
    x = torch.randn(2, 7, 16, dtype=torch.float64)
    omega = partial_rotary_frequencies(16, 4, base=10000.0)
    torch.testing.assert_close(omega[:2], rotary_frequencies(4), atol=0, rtol=0)
    assert omega[2:].abs().max().item() == 0.0
    torch.testing.assert_close(apply_rotary(x, frequencies=omega), apply_rotary(x, rotary_dim=4))
    # ...but not in the half layout, where GPT-NeoX pairs (k, k + rotary_dim/2)
    gap = apply_rotary(x, layout="half", frequencies=omega) - apply_rotary(
        x, layout="half", rotary_dim=4
    )
    assert gap.abs().max().item() > 0.1


def test_full_rotary_dim_is_plain_rotary_and_frequencies_pass_through():
    torch.manual_seed(1)
    x = torch.randn(5, 8, dtype=torch.float64)
    torch.testing.assert_close(apply_rotary(x, rotary_dim=8), apply_rotary(x), atol=0, rtol=0)
    omega = torch.tensor([0.5, 0.25], dtype=torch.float64)
    out = apply_rotary(x, layout="half", rotary_dim=4, frequencies=omega)
    torch.testing.assert_close(out[:, :4], apply_rotary(x[:, :4], layout="half", frequencies=omega))


@pytest.mark.parametrize(
    ("head_dim", "fraction", "base"),
    [
        (64, 0.25, 10000.0),
        (64, 0.75, 10000.0),
        (16, 0.5, 500000.0),
        (40, 0.3, 10000.0),
        (8, 1.0, 10.0),
        (8, 0.0, 10.0),
    ],
)
def test_p_rope_equals_transformers_proportional(head_dim, fraction, base):
    config = LlamaConfig(
        hidden_size=head_dim * 4,
        num_attention_heads=4,
        rope_parameters={
            "rope_type": "proportional",
            "rope_theta": base,
            "partial_rotary_factor": fraction,
        },
    )
    inv_freq, scale = ROPE_INIT_FUNCTIONS["proportional"](config)
    assert scale == 1.0
    ours = p_rope_frequencies(head_dim, fraction, base)
    torch.testing.assert_close(ours.float(), inv_freq, atol=1e-7, rtol=1e-6)
    assert int((ours > 0).sum()) == int((inv_freq > 0).sum())


def test_p_rope_by_hand_and_rotation():
    omega = p_rope_frequencies(8, 0.5, base=10000.0)  # 4 pairs, the 2 fastest kept
    torch.testing.assert_close(omega, torch.tensor([1.0, 0.1, 0.0, 0.0], dtype=torch.float64))
    x = torch.randn(6, 8, dtype=torch.float64)
    out = apply_rotary(x, torch.arange(6) * 7, layout="half", frequencies=omega)
    # pairs (2, 6) and (3, 7) are not rotated; pairs (0, 4) and (1, 5) are
    torch.testing.assert_close(out[:, [2, 3, 6, 7]], x[:, [2, 3, 6, 7]], atol=0, rtol=0)
    assert (out[1:, [0, 1, 4, 5]] - x[1:, [0, 1, 4, 5]]).abs().max().item() > 0.1


def test_model_attention_with_partial_frequencies_is_relative():
    attention = RotaryPositionalAttention(8)
    attention.set_frequencies(p_rope_frequencies(8, 0.5).float())
    torch.manual_seed(2)
    q = torch.randn(1, 1, 1, 8).expand(1, 1, 6, 8)  # the same vector at every position
    k = torch.randn(1, 1, 1, 8).expand(1, 1, 6, 8)
    rq, rk = attention.rotate(q, k, offset=0)
    scores = rq[0, 0] @ rk[0, 0].T  # (6, 6)
    for phi in range(1, 5):
        diagonal = torch.diagonal(scores, offset=phi)
        torch.testing.assert_close(diagonal, diagonal[:1].expand_as(diagonal), atol=1e-5, rtol=1e-5)
    assert (scores[0, 1] - scores[0, 2]).abs().item() > 1e-3  # position still matters


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: apply_rotary(torch.randn(3, 8), rotary_dim=10),
            ValueError,
            ["rotary_dim", "10", "d=8"],
        ),
        (lambda: apply_rotary(torch.randn(3, 8), rotary_dim=3), ValueError, ["rotary_dim", "3"]),
        (lambda: apply_rotary(torch.randn(3, 8), rotary_dim=2.0), TypeError, ["rotary_dim", "2.0"]),
        (
            lambda: apply_rotary(torch.randn(3, 8), rotary_dim=4, frequencies=torch.ones(4)),
            ValueError,
            ["frequencies", "(2,)"],
        ),
        (lambda: partial_rotary_frequencies(8, 12), ValueError, ["rotary_dim", "12"]),
        (lambda: p_rope_frequencies(8, 1.5), ValueError, ["fraction", "1.5"]),
        (lambda: p_rope_frequencies(8, "half"), TypeError, ["fraction", "'half'"]),
        (lambda: p_rope_frequencies(7, 0.5), ValueError, ["d", "7"]),
    ],
)
def test_bad_inputs_are_named(call, error, words):
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value)


def test_the_models_named_in_notebook_16_rotate_what_it_says():
    from transformers import GPTJConfig
    from transformers.models.gemma4.configuration_gemma4 import Gemma4TextConfig

    gptj = GPTJConfig()  # GPT-J-6B's sizes are the class defaults
    assert (gptj.rotary_dim, gptj.n_embd // gptj.n_head) == (64, 256)
    neox = GPTNeoXConfig()
    assert neox.rope_parameters["partial_rotary_factor"] == 0.25
    gemma = Gemma4TextConfig().rope_parameters["full_attention"]
    assert gemma["rope_type"] == "proportional" and gemma["partial_rotary_factor"] == 0.25
    assert gemma["rope_theta"] == 1_000_000.0
