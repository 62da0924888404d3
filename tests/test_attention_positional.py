"""MultiHeadAttention with position inside attention: rotary, relative (Shaw et al. 2018) and an
ALiBi bias. Each against a step-by-step reference; readable and fused paths equal; bad inputs."""

import math

import pytest
import torch

from helpers.attention import MultiHeadAttention, causal_mask
from helpers.encodings import alibi_bias, apply_rotary, relative_positions


def _x(batch=2, length=6, d_model=16, seed=0):
    return torch.randn(
        batch, length, d_model, generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )


def _mha(seed=0, **kwargs):
    torch.manual_seed(seed)
    mha = MultiHeadAttention(16, 4, **kwargs).double()
    if mha.relative_k is not None:  # larger than the init, so that mistakes show
        with torch.no_grad():
            mha.relative_k.weight.normal_()
            if mha.relative_v is not None:
                mha.relative_v.weight.normal_()
    return mha


def _heads(mha, x, proj):
    return proj(x).view(x.shape[0], x.shape[1], mha.num_heads, mha.d_k).transpose(1, 2)


def _reference(mha, x, mask=None, extra_bias=None):
    """Attention written out in full, one formula per line, for self-attention on x."""
    q, k, v = (_heads(mha, x, p) for p in (mha.q_proj, mha.k_proj, mha.v_proj))
    if mha.rotary:
        q, k = apply_rotary(q, base=mha.rotary_base), apply_rotary(k, base=mha.rotary_base)
    scores = q @ k.transpose(-2, -1)  # (B, H, L, L)
    length = x.shape[1]
    if mha.relative_k is not None:
        a_k = mha.relative_k.weight[
            relative_positions(length, length, mha.relative_k.max_distance)
            + mha.relative_k.max_distance
        ]  # (L, L, d_k)
        scores = scores + torch.einsum("bhid,ijd->bhij", q, a_k)
    scores = scores / math.sqrt(mha.d_k)
    if extra_bias is not None:
        scores = scores + extra_bias
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    out = weights @ v
    if mha.relative_v is not None:
        a_v = mha.relative_v.weight[
            relative_positions(length, length, mha.relative_v.max_distance)
            + mha.relative_v.max_distance
        ]
        out = out + torch.einsum("bhij,ijd->bhid", weights, a_v)
    out = out.transpose(1, 2).reshape(x.shape)
    return mha.out_proj(out), weights


def test_defaults_add_no_parameters_and_change_nothing():
    torch.manual_seed(0)
    plain = MultiHeadAttention(16, 4)
    torch.manual_seed(0)
    explicit = MultiHeadAttention(16, 4, rotary=False, relative_max_distance=None)
    assert set(dict(plain.named_parameters())) == {
        f"{p}_proj.{w}" for p in "qkv" for w in ("weight", "bias")
    } | {"out_proj.weight", "out_proj.bias"}
    x = _x().float()
    torch.testing.assert_close(plain(x, x, x)[0], explicit(x, x, x)[0], rtol=0, atol=0)
    assert not plain.rotary and plain.relative_k is None and plain.relative_v is None


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rotary": True},
        {"rotary": True, "rotary_base": 100.0},
        {"relative_max_distance": 2},
        {"relative_max_distance": 3, "relative_values": True},
        {"relative_max_distance": 0},
    ],
)
@pytest.mark.parametrize("masked", [False, True])
def test_matches_reference_readable_and_fused(kwargs, masked):
    mha = _mha(**kwargs)
    x = _x()
    mask = causal_mask(x.shape[1]) if masked else None
    expected_out, expected_weights = _reference(mha, x, mask)
    out, weights = mha(x, x, x, mask)
    torch.testing.assert_close(out, expected_out)
    torch.testing.assert_close(weights, expected_weights)
    fused, none = mha(x, x, x, mask, need_weights=False)
    assert none is None
    torch.testing.assert_close(fused, expected_out)


def test_relative_adds_to_an_alibi_bias():
    mha = _mha(relative_max_distance=2, relative_values=True)
    x = _x()
    mask = causal_mask(6)
    bias = alibi_bias(6, 4).double()
    expected, _ = _reference(mha, x, mask, extra_bias=bias)
    torch.testing.assert_close(mha(x, x, x, mask, attn_bias=bias)[0], expected)
    torch.testing.assert_close(mha(x, x, x, mask, need_weights=False, attn_bias=bias)[0], expected)


def test_alibi_bias_readable_equals_fused():
    mha = _mha()
    x = _x()
    mask, bias = causal_mask(6), alibi_bias(6, 4).double()
    expected, weights = _reference(mha, x, mask, extra_bias=bias)
    torch.testing.assert_close(mha(x, x, x, mask, attn_bias=bias)[0], expected)
    torch.testing.assert_close(mha(x, x, x, mask, need_weights=False, attn_bias=bias)[0], expected)
    # With a steep slope a head attends mostly to the last keys: weight falls with distance.
    assert torch.all(weights[:, 0, -1, -1] > weights[:, 0, -1, 0])


def test_position_inside_attention_sees_order_in_repeated_tokens():
    # The same vector at every position: without position each query spreads its weight
    # uniformly over its visible keys; rotary and relative scores depend on the offsets.
    x = _x(length=1).expand(2, 5, 16).contiguous()
    mask = causal_mask(5)
    uniform = mask / mask.sum(-1, keepdim=True)
    torch.testing.assert_close(_mha()(x, x, x, mask)[1], uniform.double().expand(2, 4, 5, 5))
    for kwargs in ({"rotary": True}, {"relative_max_distance": 2}):
        weights = _mha(**kwargs)(x, x, x, mask)[1]
        assert (weights - uniform).abs().max() > 1e-2


def test_rotary_scores_shift_invariant():
    # Rotary self-attention on a sequence and on the same sequence placed later (left part
    # padded away by the mask) gives the same outputs: only offsets matter.
    mha = _mha(rotary=True)
    x = _x(length=4)
    pad = _x(length=3, seed=9)
    shifted = torch.cat([pad, x], dim=1)  # (B, 7, d_model): x now at positions 3..6
    mask = causal_mask(7) & torch.tensor([False] * 3 + [True] * 4)
    out_shifted = mha(shifted, shifted, shifted, mask)[0][:, 3:]
    torch.testing.assert_close(out_shifted, mha(x, x, x, causal_mask(4))[0])


def test_cross_attention_lengths_and_gradients():
    mha = _mha(rotary=True, relative_max_distance=2, relative_values=True)
    q_in, kv = _x(length=3), _x(length=7, seed=1)
    out, weights = mha(q_in, kv, kv)
    assert out.shape == (2, 3, 16) and weights.shape == (2, 4, 3, 7)
    out.sum().backward()
    assert mha.relative_k.weight.grad.abs().sum() > 0 and mha.relative_v.weight.grad.abs().sum() > 0


def test_dropout_training_uses_the_same_weights_for_the_value_term():
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4, dropout=0.5, relative_max_distance=2, relative_values=True)
    x = _x().float()
    torch.manual_seed(1)
    out, weights = mha(x, x, x)
    assert (weights == 0).any()  # some weights dropped
    assert torch.isfinite(out).all()


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"rotary": "yes"}, TypeError, "rotary"),
        ({"rotary": 1}, TypeError, "rotary"),
        ({"rotary_base": 0.0}, ValueError, "rotary_base"),
        ({"rotary_base": "big"}, TypeError, "rotary_base"),
        ({"relative_max_distance": -1}, ValueError, "relative_max_distance"),
        ({"relative_max_distance": 2.5}, TypeError, "relative_max_distance"),
        ({"relative_values": True}, ValueError, "relative_values"),
        ({"relative_max_distance": 2, "relative_values": "no"}, TypeError, "relative_values"),
    ],
)
def test_bad_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        MultiHeadAttention(16, 4, **kwargs)


def test_rotary_needs_even_head_width():
    with pytest.raises(ValueError, match="rotary"):
        MultiHeadAttention(12, 4, rotary=True)  # d_k = 3
    MultiHeadAttention(12, 4)  # fine without rotary
