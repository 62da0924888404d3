"""MultiHeadAttention with position inside attention: rotary, relative (Shaw et al. 2018) and an
ALiBi bias. Each against a step-by-step reference; readable and fused paths equal; bad inputs."""

import math

import pytest
import torch

from helpers.attention import MultiHeadAttention, causal_mask
from helpers.encodings import (
    RelativePositionalAttention,
    RotaryPositionalAttention,
    alibi_bias,
    apply_rotary,
    relative_positions,
)


def _position(rotary=False, rotary_base=10000.0, relative_max_distance=None, relative_values=False):
    """The position module factory MultiHeadAttention(position=...) takes, from scheme options."""
    if rotary:
        return lambda d_k: RotaryPositionalAttention(d_k, rotary_base)
    if relative_max_distance is not None:
        return lambda d_k: RelativePositionalAttention(d_k, relative_max_distance, relative_values)
    return None


def _x(batch=2, length=6, d_model=16, seed=0):
    return torch.randn(
        batch, length, d_model, generator=torch.Generator().manual_seed(seed), dtype=torch.float64
    )


def _mha(seed=0, **kwargs):
    torch.manual_seed(seed)
    mha = MultiHeadAttention(16, 4, position=_position(**kwargs)).double()
    if _relative(mha):  # larger than the init, so that mistakes show
        with torch.no_grad():
            mha.position.keys.weight.normal_()
            if mha.position.values is not None:
                mha.position.values.weight.normal_()
    return mha


def _relative(mha):
    return isinstance(mha.position, RelativePositionalAttention)


def _heads(mha, x, proj):
    return proj(x).view(x.shape[0], x.shape[1], mha.num_heads, mha.d_k).transpose(1, 2)


def _reference(mha, x, mask=None, extra_bias=None):
    """Attention written out in full, one formula per line, for self-attention on x."""
    q, k, v = (_heads(mha, x, p) for p in (mha.q_proj, mha.k_proj, mha.v_proj))
    if isinstance(mha.position, RotaryPositionalAttention):
        base = mha.position.base
        q, k = apply_rotary(q, base=base), apply_rotary(k, base=base)
    scores = q @ k.transpose(-2, -1)  # (B, H, L, L)
    length = x.shape[1]
    if _relative(mha):
        a_k = mha.position.keys.weight[
            relative_positions(length, length, mha.position.keys.max_distance)
            + mha.position.keys.max_distance
        ]  # (L, L, d_k)
        scores = scores + torch.einsum("bhid,ijd->bhij", q, a_k)
    scores = scores / math.sqrt(mha.d_k)
    if extra_bias is not None:
        scores = scores + extra_bias
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = scores.softmax(-1)
    out = weights @ v
    if _relative(mha) and mha.position.values is not None:
        a_v = mha.position.values.weight[
            relative_positions(length, length, mha.position.values.max_distance)
            + mha.position.values.max_distance
        ]
        out = out + torch.einsum("bhij,ijd->bhid", weights, a_v)
    out = out.transpose(1, 2).reshape(x.shape)
    return mha.out_proj(out), weights


def test_defaults_add_no_parameters_and_change_nothing():
    torch.manual_seed(0)
    plain = MultiHeadAttention(16, 4)
    torch.manual_seed(0)
    explicit = MultiHeadAttention(16, 4, position=None)
    assert set(dict(plain.named_parameters())) == {
        f"{p}_proj.{w}" for p in "qkv" for w in ("weight", "bias")
    } | {"out_proj.weight", "out_proj.bias"}
    x = _x().float()
    torch.testing.assert_close(plain(x, x, x)[0], explicit(x, x, x)[0], rtol=0, atol=0)
    assert plain.position is None


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
    mha = _mha(relative_max_distance=2, relative_values=True)
    q_in, kv = _x(length=3), _x(length=7, seed=1)
    out, weights = mha(q_in, kv, kv)
    assert out.shape == (2, 3, 16) and weights.shape == (2, 4, 3, 7)
    out.sum().backward()
    assert (
        mha.position.keys.weight.grad.abs().sum() > 0
        and mha.position.values.weight.grad.abs().sum() > 0
    )


def test_dropout_training_uses_the_same_weights_for_the_value_term():
    torch.manual_seed(0)
    mha = MultiHeadAttention(
        16, 4, dropout=0.5, position=_position(relative_max_distance=2, relative_values=True)
    )
    x = _x().float()
    torch.manual_seed(1)
    out, weights = mha(x, x, x)
    assert (weights == 0).any()  # some weights dropped
    assert torch.isfinite(out).all()


@pytest.mark.parametrize(
    ("position", "error", "name"),
    [
        (lambda d_k: RotaryPositionalAttention(d_k, 0.0), ValueError, "base"),
        (lambda d_k: RotaryPositionalAttention(d_k, "big"), TypeError, "base"),
        (lambda d_k: RelativePositionalAttention(d_k, -1), ValueError, "max_distance"),
        (lambda d_k: RelativePositionalAttention(d_k, 2.5), TypeError, "max_distance"),
        (lambda d_k: RelativePositionalAttention(d_k, 2, "no"), TypeError, "values"),
        ("rotary", TypeError, "position"),
        (RotaryPositionalAttention(4), TypeError, "position"),
        (lambda d_k: "rotary", TypeError, "position"),
    ],
)
def test_bad_arguments(position, error, name):
    with pytest.raises(error, match=name):
        MultiHeadAttention(16, 4, position=position)


def test_rotary_needs_even_head_width():
    with pytest.raises(ValueError, match="d_k"):
        MultiHeadAttention(12, 4, position=RotaryPositionalAttention)  # d_k = 3
    MultiHeadAttention(12, 4)  # fine without rotary
