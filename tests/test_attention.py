"""Unit tests of helpers.attention: hand-computed values, PyTorch references, masks, bad inputs."""

import math

import pytest
import torch
import torch.nn.functional as F  # noqa: N812 (PyTorch's own convention)
from torch import nn

from helpers.attention import (
    MultiHeadAttention,
    causal_mask,
    padding_mask,
    scaled_dot_product_attention,
    to_ignore_mask,
)


def _randn(*shape, dtype=torch.float32, requires_grad=False, seed=0):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(*shape, generator=generator, dtype=dtype)
    return x.requires_grad_(requires_grad)


def _qkv(batch=2, heads=3, L_q=5, L_k=6, d_k=8, d_v=4, dtype=torch.float32, requires_grad=False):
    q = _randn(batch, heads, L_q, d_k, dtype=dtype, requires_grad=requires_grad, seed=1)
    k = _randn(batch, heads, L_k, d_k, dtype=dtype, requires_grad=requires_grad, seed=2)
    v = _randn(batch, heads, L_k, d_v, dtype=dtype, requires_grad=requires_grad, seed=3)
    return q, k, v


def _loaded_pair(d_model=16, num_heads=4, bias=True, seed=0):
    """An nn.MultiheadAttention and the course module carrying the same weights."""
    torch.manual_seed(seed)
    reference = nn.MultiheadAttention(d_model, num_heads, batch_first=True, bias=bias)
    ours = MultiHeadAttention(d_model, num_heads, bias=bias)
    with torch.no_grad():
        # PyTorch stacks W_q, W_k, W_v into one (3 d_model, d_model) in_proj_weight.
        for proj, w in zip(
            (ours.q_proj, ours.k_proj, ours.v_proj), reference.in_proj_weight.chunk(3), strict=True
        ):
            proj.weight.copy_(w)
        if bias:
            for proj, b in zip(
                (ours.q_proj, ours.k_proj, ours.v_proj),
                reference.in_proj_bias.chunk(3),
                strict=True,
            ):
                proj.bias.copy_(b)
        ours.out_proj.load_state_dict(reference.out_proj.state_dict())
    return reference, ours


# A batch of three sequences of length 5 padded with pad_id 0: lengths 5, 3 and 1.
TOKENS = torch.tensor([[4, 7, 2, 9, 5], [3, 8, 6, 0, 0], [5, 0, 0, 0, 0]])


# ---------------------------------------------------------------------------------------------
# scaled_dot_product_attention: values
# ---------------------------------------------------------------------------------------------


def test_hand_computed_example():
    # One query, two keys, d_k = 2: scores = [1/sqrt(2), 0].
    q = torch.tensor([[1.0, 0.0]])
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    a = 1 / math.sqrt(2)
    w0 = math.exp(a) / (math.exp(a) + 1)  # 0.66976...
    out, weights = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(weights, torch.tensor([[w0, 1 - w0]]), atol=1e-7, rtol=0)
    expected = torch.tensor([[w0 * 1 + (1 - w0) * 3, w0 * 2 + (1 - w0) * 4]])
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)
    assert abs(weights[0, 0].item() - 0.669761) < 1e-6  # written out, as in notebook 06


def test_hand_computed_example_with_mask():
    q = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    k = torch.tensor([[1.0, 0.0], [0.0, 1.0]])
    v = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
    out, weights = scaled_dot_product_attention(q, k, v, causal_mask(2))
    # Query 0 sees only key 0; query 1 sees both, with scores [0, 1/sqrt(2)].
    w1 = 1 / (1 + math.exp(1 / math.sqrt(2)))
    torch.testing.assert_close(weights, torch.tensor([[1.0, 0.0], [w1, 1 - w1]]))
    torch.testing.assert_close(out[0], v[0])


def test_rows_sum_to_one_and_shapes():
    q, k, v = _qkv()
    out, weights = scaled_dot_product_attention(q, k, v)
    assert out.shape == (2, 3, 5, 4) and weights.shape == (2, 3, 5, 6)
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 5))
    assert (weights > 0).all()


@pytest.mark.parametrize("shape", [(5, 8), (2, 5, 8), (2, 3, 5, 8), (2, 2, 3, 5, 8)])
def test_equals_pytorch_without_mask(shape):
    q = _randn(*shape, seed=1)
    k = _randn(*shape[:-2], 7, shape[-1], seed=2)
    v = _randn(*shape[:-2], 7, 3, seed=3)
    out, _ = scaled_dot_product_attention(q, k, v)
    torch.testing.assert_close(out, F.scaled_dot_product_attention(q, k, v), atol=1e-6, rtol=0)


def _masks():
    L = 5
    random = _randn(2, 3, L, L, seed=9) > 0
    random[..., 0] = True  # every query sees at least key 0 (F.sdpa's -inf rows differ)
    return {
        "causal": causal_mask(L),
        "padding": padding_mask(TOKENS[:2], 0),
        "padding & causal": padding_mask(TOKENS[:2], 0) & causal_mask(L),
        "random per head": random,
        "keys only (L_k,)": torch.tensor([True, True, False, True, False]),
    }


@pytest.mark.parametrize("name", list(_masks()))
def test_equals_pytorch_with_masks(name):
    mask = _masks()[name]
    q, k, v = _qkv(L_q=5, L_k=5)
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    # F.scaled_dot_product_attention wants at least (L_q, L_k); ours also takes a (L_k,) mask.
    expected = F.scaled_dot_product_attention(
        q, k, v, attn_mask=mask.expand(5, 5) if mask.ndim == 1 else mask
    )
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)
    assert (weights[~mask.expand_as(weights)] == 0).all()
    torch.testing.assert_close(weights.sum(-1), torch.ones(2, 3, 5))


def test_bias_equals_pytorch_float_mask():
    q, k, v = _qkv(L_q=5, L_k=6)
    bias = _randn(3, 5, 6, seed=5)
    out, _ = scaled_dot_product_attention(q, k, v, attn_bias=bias)
    expected = F.scaled_dot_product_attention(q, k, v, attn_mask=bias)
    torch.testing.assert_close(out, expected, atol=1e-6, rtol=0)


def test_weights_computed_by_hand_formula():
    q, k, v = _qkv(d_k=16)
    mask = torch.ones(5, 6, dtype=torch.bool).tril()  # query i sees keys 0..i
    _, weights = scaled_dot_product_attention(q, k, v, mask)
    scores = (q @ k.transpose(-2, -1) / 4.0).masked_fill(~mask, float("-inf"))  # sqrt(16) = 4
    torch.testing.assert_close(weights, scores.softmax(-1), atol=1e-7, rtol=0)


# ---------------------------------------------------------------------------------------------
# masks: padding, causal, fully masked rows, half precision
# ---------------------------------------------------------------------------------------------


def test_padding_keys_get_exactly_zero_weight_and_do_not_matter():
    x = _randn(3, 5, 8, seed=4)
    mask = padding_mask(TOKENS, 0)[:, 0]  # (3, 1, 5): single-head, 3-D tensors
    out, weights = scaled_dot_product_attention(x, x, x, mask)
    is_pad = TOKENS == 0
    assert (weights.transpose(1, 2)[is_pad] == 0.0).all()  # exactly zero, not just small
    # Whatever sits in the padded keys/values, real outputs do not change.
    k2, v2 = x.clone(), x.clone()
    k2[is_pad] = 100.0
    v2[is_pad] = -7.0
    out2, _ = scaled_dot_product_attention(x, k2, v2, mask)
    assert torch.equal(out, out2)


def test_future_tokens_cannot_change_earlier_outputs():
    x = _randn(1, 6, 8, seed=6)
    y = x.clone()
    y[:, 3:] = _randn(1, 3, 8, seed=7)  # change positions 3, 4, 5
    mask = causal_mask(6)
    out_x, w_x = scaled_dot_product_attention(x, x, x, mask)
    out_y, _ = scaled_dot_product_attention(y, y, y, mask)
    assert torch.equal(out_x[:, :3], out_y[:, :3])
    assert not torch.allclose(out_x[:, 3:], out_y[:, 3:])
    assert (w_x[0].triu(diagonal=1) == 0).all()
    # Without the mask the change leaks backwards.
    assert not torch.allclose(
        scaled_dot_product_attention(x, x, x)[0][:, :3],
        scaled_dot_product_attention(y, y, y)[0][:, :3],
    )


def test_fully_masked_row_gives_zeros_not_nan_and_finite_gradients():
    q, k, v = _qkv(L_q=4, L_k=4, requires_grad=True)
    mask = torch.ones(2, 1, 4, 4, dtype=torch.bool)
    mask[0, 0, 2] = False  # query 2 of sequence 0 sees no key
    out, weights = scaled_dot_product_attention(q, k, v, mask)
    assert torch.equal(out[0, :, 2], torch.zeros(3, 4))
    assert torch.equal(weights[0, :, 2], torch.zeros(3, 4))
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    # Other rows are untouched: equal to PyTorch.
    torch.testing.assert_close(
        out[1], F.scaled_dot_product_attention(q, k, v, attn_mask=mask)[1], atol=1e-6, rtol=0
    )
    # No NaN anywhere in the graph, not even one hidden by a later masked_fill.
    with pytest.warns(UserWarning, match="Anomaly Detection"), torch.autograd.detect_anomaly():
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        (out.sum() + weights.sum()).backward()
    for t in (q, k, v):
        assert torch.isfinite(t.grad).all()
    # The masked row contributes no gradient to its query.
    assert torch.equal(q.grad[0, :, 2], torch.zeros(3, 8))


def test_the_naive_minus_inf_recipe_does_give_nan():
    # The pitfall the helper guards against (pytorch/pytorch #41508): keep it reproducible.
    scores = torch.zeros(2, 3).masked_fill(torch.tensor([[True] * 3, [False] * 3]), float("-inf"))
    assert torch.isnan(scores.softmax(-1)[0]).all()


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_precision_masking_no_nan_no_overflow(dtype):
    q, k, v = _qkv(L_q=5, L_k=5)
    mask = padding_mask(TOKENS[:2], 0) & causal_mask(5)
    mask = mask.expand(2, 1, 5, 5).clone()
    mask[1, 0, 4] = False  # one fully masked row too
    out, weights = scaled_dot_product_attention(q.to(dtype), k.to(dtype), v.to(dtype), mask)
    assert out.dtype == dtype and weights.dtype == dtype
    assert torch.isfinite(out).all() and torch.isfinite(weights).all()
    assert (weights[~mask.expand_as(weights)] == 0).all()
    assert (out[1, :, 4] == 0).all()
    reference, _ = scaled_dot_product_attention(q, k, v, mask)
    torch.testing.assert_close(out.float(), reference, atol=3e-2, rtol=0)


def test_minus_1e9_overflows_float16():
    # Why the helper fills with -inf and never with -1e9 (NVIDIA/apex #1105).
    scores = torch.zeros(2, 2, dtype=torch.float16)
    with pytest.raises(RuntimeError, match="overflow"):
        scores.masked_fill(torch.eye(2, dtype=torch.bool), -1e9)


def test_dropout_zeroes_or_rescales_weights():
    q, k, v = _qkv()
    _, clean = scaled_dot_product_attention(q, k, v)
    torch.manual_seed(0)
    _, dropped = scaled_dot_product_attention(q, k, v, dropout_p=0.5)
    kept = dropped != 0
    assert 0 < kept.float().mean() < 1
    torch.testing.assert_close(dropped[kept], 2 * clean[kept])


# ---------------------------------------------------------------------------------------------
# scaled_dot_product_attention: bad inputs
# ---------------------------------------------------------------------------------------------


def test_batch_padding_mask_with_3d_tensors_raises():
    # (batch, 1, 1, L) with (batch, L, d) tensors would silently broadcast to (batch, batch, L, L).
    x = _randn(3, 5, 8)
    with pytest.raises(ValueError, match=r"mask of shape \(3, 1, 1, 5\).*\(3, 5, 5\)"):
        scaled_dot_product_attention(x, x, x, padding_mask(TOKENS, 0))


@pytest.mark.parametrize(
    ("q_shape", "k_shape", "v_shape", "pattern"),
    [
        ((2, 5, 8), (2, 6, 7), (2, 6, 4), r"q \(2, 5, 8\) and k \(2, 6, 7\)"),
        ((2, 5, 8), (2, 6, 8), (2, 7, 4), r"k \(2, 6, 8\) and v \(2, 7, 4\)"),
        ((2, 5, 8), (3, 6, 8), (3, 6, 4), r"q \(2, 5, 8\) and k \(3, 6, 8\)"),
        ((2, 1, 5, 8), (2, 6, 8), (2, 6, 4), r"q \(2, 1, 5, 8\) and k \(2, 6, 8\)"),
    ],
)
def test_bad_shapes_raise_value_error_naming_both(q_shape, k_shape, v_shape, pattern):
    with pytest.raises(ValueError, match=pattern):
        scaled_dot_product_attention(_randn(*q_shape), _randn(*k_shape), _randn(*v_shape))


@pytest.mark.parametrize(
    ("mask_shape", "pattern"),
    [
        ((5, 5), r"\(5, 5\).*\(2, 5, 6\)"),
        ((3, 5, 6), r"\(3, 5, 6\).*\(2, 5, 6\)"),
        ((2, 2, 5, 6), r"\(2, 2, 5, 6\).*\(2, 5, 6\)"),
    ],
)
def test_mask_that_does_not_fit_raises(mask_shape, pattern):
    q, k, v = _randn(2, 5, 8), _randn(2, 6, 8), _randn(2, 6, 4)
    with pytest.raises(ValueError, match=pattern):
        scaled_dot_product_attention(q, k, v, torch.ones(mask_shape, dtype=torch.bool))
    with pytest.raises(ValueError, match="bias"):
        scaled_dot_product_attention(q, k, v, attn_bias=torch.zeros(mask_shape))


@pytest.mark.parametrize(
    ("kwargs", "error", "pattern"),
    [
        ({"q": torch.ones(2, 3, dtype=torch.long)}, TypeError, "q must be a floating"),
        ({"k": [[1.0, 2.0]]}, TypeError, "k must be a torch.Tensor"),
        ({"v": torch.ones(2, 3, dtype=torch.float64)}, TypeError, r"v torch.float64"),
        ({"q": torch.ones(3)}, ValueError, "q must have at least 2"),
        ({"mask": torch.ones(2, 2)}, TypeError, "mask must be a boolean"),
        ({"mask": torch.ones(2, 2, dtype=torch.uint8)}, TypeError, "mask must be a boolean"),
        (
            {"attn_bias": torch.ones(2, 2, dtype=torch.bool)},
            TypeError,
            "attn_bias must be a floating",
        ),
        ({"dropout_p": 1.0}, ValueError, "dropout_p"),
        ({"dropout_p": -0.1}, ValueError, "dropout_p"),
        ({"dropout_p": "0.1"}, TypeError, "dropout_p"),
    ],
)
def test_bad_arguments(kwargs, error, pattern):
    args = {"q": torch.ones(2, 3), "k": torch.ones(2, 3), "v": torch.ones(2, 3)} | kwargs
    with pytest.raises(error, match=pattern):
        scaled_dot_product_attention(**args)


# ---------------------------------------------------------------------------------------------
# causal_mask, padding_mask, to_ignore_mask
# ---------------------------------------------------------------------------------------------


def test_causal_mask_values():
    expected = torch.tensor([[True, False, False], [True, True, False], [True, True, True]])
    assert torch.equal(causal_mask(3), expected)
    assert causal_mask(1).tolist() == [[True]]
    assert causal_mask(4, device="cpu").dtype == torch.bool


@pytest.mark.parametrize(
    ("value", "error"), [(0, ValueError), (-2, ValueError), (3.0, TypeError), (True, TypeError)]
)
def test_causal_mask_bad_seq_len(value, error):
    with pytest.raises(error, match="seq_len"):
        causal_mask(value)


def test_padding_mask_values_shape_and_combination():
    mask = padding_mask(TOKENS, 0)
    assert mask.shape == (3, 1, 1, 5) and mask.dtype == torch.bool
    assert mask[:, 0, 0].tolist() == [[True] * 5, [True] * 3 + [False] * 2, [True] + [False] * 4]
    combined = mask & causal_mask(5)  # a plain & broadcasts to (batch, 1, L, L)
    assert combined.shape == (3, 1, 5, 5)
    assert combined[1, 0].tolist() == [
        [True, False, False, False, False],
        [True, True, False, False, False],
        [True, True, True, False, False],
        [True, True, True, False, False],
        [True, True, True, False, False],
    ]
    assert padding_mask(torch.tensor([[1, 2, 1]]), 1)[0, 0, 0].tolist() == [False, True, False]


@pytest.mark.parametrize(
    ("tokens", "pad_id", "error", "pattern"),
    [
        (torch.ones(2, 3), 0, TypeError, "tokens"),
        (torch.ones(3, dtype=torch.long), 0, ValueError, "tokens"),
        ([[1, 0]], 0, TypeError, "tokens"),
        (torch.ones(2, 3, dtype=torch.long), 0.0, TypeError, "pad_id"),
    ],
)
def test_padding_mask_bad_arguments(tokens, pad_id, error, pattern):
    with pytest.raises(error, match=pattern):
        padding_mask(tokens, pad_id)


def test_to_ignore_mask_flips_polarity_for_nn_multihead_attention():
    mask = padding_mask(TOKENS, 0)
    assert torch.equal(to_ignore_mask(mask), ~mask)
    assert torch.equal(to_ignore_mask(to_ignore_mask(mask)), mask)
    with pytest.raises(TypeError, match="mask"):
        to_ignore_mask(torch.ones(2, 2))


# ---------------------------------------------------------------------------------------------
# MultiHeadAttention
# ---------------------------------------------------------------------------------------------


def test_structure_and_parameter_count():
    mha = MultiHeadAttention(32, 4)
    assert (mha.d_model, mha.num_heads, mha.d_k) == (32, 4, 8)
    for name in ("q_proj", "k_proj", "v_proj", "out_proj"):
        layer = getattr(mha, name)
        assert isinstance(layer, nn.Linear) and layer.weight.shape == (32, 32)
    # Four d_model x d_model matrices and biases, whatever the number of heads.
    count = sum(p.numel() for p in mha.parameters())
    assert count == 4 * (32 * 32 + 32)
    assert count == sum(p.numel() for p in MultiHeadAttention(32, 1).parameters())
    assert count == sum(p.numel() for p in nn.MultiheadAttention(32, 4).parameters())
    assert sum(p.numel() for p in MultiHeadAttention(32, 4, bias=False).parameters()) == 4 * 32**2


def _reference_masks(mask):
    """Course mask -> nn.MultiheadAttention keyword arguments (True = ignore)."""
    if mask is None:
        return {}
    if mask.ndim == 4 and mask.shape[2] == 1:  # a padding mask (B, 1, 1, L_k)
        return {"key_padding_mask": to_ignore_mask(mask[:, 0, 0])}
    return {"attn_mask": to_ignore_mask(mask)}


@pytest.mark.parametrize("which", ["none", "padding", "causal", "padding+causal"])
@pytest.mark.parametrize("training", [True, False])
def test_equals_nn_multihead_attention(which, training):
    reference, ours = _loaded_pair()
    reference.train(training)
    ours.train(training)
    x = _randn(3, 5, 16, seed=11)
    pad, causal = padding_mask(TOKENS, 0), causal_mask(5)
    course = {"none": None, "padding": pad, "causal": causal, "padding+causal": pad & causal}[which]
    if which == "padding+causal":
        kwargs = {
            "key_padding_mask": to_ignore_mask(pad[:, 0, 0]),
            "attn_mask": to_ignore_mask(causal),
        }
    else:
        kwargs = _reference_masks(course)
    out, weights = ours(x, x, x, course)
    ref_out, ref_weights = reference(x, x, x, **kwargs)  # weights averaged over heads
    assert out.shape == (3, 5, 16) and weights.shape == (3, 4, 5, 5)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=0)
    torch.testing.assert_close(weights.mean(dim=1), ref_weights, atol=1e-6, rtol=0)
    ref_per_head = reference(x, x, x, average_attn_weights=False, **kwargs)[1]
    torch.testing.assert_close(weights, ref_per_head, atol=1e-6, rtol=0)


def test_equals_nn_multihead_attention_cross_attention_without_bias():
    reference, ours = _loaded_pair(d_model=12, num_heads=3, bias=False)
    query, memory = _randn(2, 4, 12, seed=12), _randn(2, 7, 12, seed=13)
    out, weights = ours(query, memory, memory)
    ref_out, ref_weights = reference(query, memory, memory)
    assert weights.shape == (2, 3, 4, 7)
    torch.testing.assert_close(out, ref_out, atol=1e-5, rtol=0)
    torch.testing.assert_close(weights.mean(1), ref_weights, atol=1e-6, rtol=0)


@pytest.mark.parametrize("which", ["none", "padding", "causal", "fully masked rows", "bias"])
def test_fast_path_equals_readable_path(which):
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4)
    x = _randn(3, 5, 16, seed=14, requires_grad=True)
    mask = {
        "none": None,
        "padding": padding_mask(TOKENS, 0),
        "causal": causal_mask(5),
        # padding & anti-causal (query i sees keys >= i): queries past the last real token see
        # no key at all: queries 3, 4 of sequence 1 and 1..4 of sequence 2.
        "fully masked rows": padding_mask(TOKENS, 0) & causal_mask(5).T,
        "bias": padding_mask(TOKENS, 0) & causal_mask(5).T,
    }[which]
    bias = _randn(4, 5, 5, seed=15) if which == "bias" else None
    out, weights = mha(x, x, x, mask, attn_bias=bias)
    (grad_readable,) = torch.autograd.grad(out.sum(), x)
    fast, none = mha(x, x, x, mask, need_weights=False, attn_bias=bias)
    (grad_fast,) = torch.autograd.grad(fast.sum(), x)
    assert none is None
    torch.testing.assert_close(fast, out, atol=1e-6, rtol=0)
    torch.testing.assert_close(grad_fast, grad_readable, atol=1e-5, rtol=0)
    assert torch.isfinite(out).all() and torch.isfinite(grad_fast).all()
    if which in ("fully masked rows", "bias"):
        empty = ~mask.expand(3, 1, 5, 5).any(-1)[:, 0]  # (B, L_q) queries with no visible key
        assert empty.sum() == 6
        assert torch.equal(weights.transpose(1, 2)[empty], torch.zeros(6, 4, 5))
        # Their attention output is zero, so the module returns out_proj's bias there.
        torch.testing.assert_close(fast[empty], mha.out_proj.bias.expand(6, 16))


def test_multi_head_future_tokens_cannot_change_earlier_outputs():
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4)
    x = _randn(2, 6, 16, seed=16)
    y = x.clone()
    y[:, 4:] += 1.0
    for need_weights in (True, False):
        out_x, _ = mha(x, x, x, causal_mask(6), need_weights=need_weights)
        out_y, _ = mha(y, y, y, causal_mask(6), need_weights=need_weights)
        assert torch.equal(out_x[:, :4], out_y[:, :4])
        assert not torch.allclose(out_x[:, 4:], out_y[:, 4:])


def test_permutation_equivariance_without_positions():
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 2)
    x = _randn(1, 6, 16, seed=17)
    perm = torch.tensor([3, 0, 5, 1, 4, 2])
    out, _ = mha(x, x, x)
    out_perm, _ = mha(x[:, perm], x[:, perm], x[:, perm])
    torch.testing.assert_close(out_perm, out[:, perm], atol=1e-6, rtol=0)


def test_dropout_only_in_training():
    torch.manual_seed(0)
    mha = MultiHeadAttention(16, 4, dropout=0.5)
    x = _randn(2, 5, 16, seed=18)
    mha.eval()
    out_a, w_a = mha(x, x, x)
    out_b, _ = mha(x, x, x)
    assert torch.equal(out_a, out_b)
    torch.testing.assert_close(w_a.sum(-1), torch.ones(2, 4, 5))
    mha.train()
    _, w_train = mha(x, x, x)
    assert (w_train == 0).any()


@pytest.mark.parametrize(
    ("args", "error", "pattern"),
    [
        ((10, 3), ValueError, r"d_model must be divisible by num_heads.*10.*3"),
        ((0, 1), ValueError, "d_model"),
        ((16, 0), ValueError, "num_heads"),
        ((16.0, 4), TypeError, "d_model"),
        ((16, 4, 1.0), ValueError, "dropout"),
        ((16, 4, 0.1, 1), TypeError, "bias"),
    ],
)
def test_multi_head_bad_constructor_arguments(args, error, pattern):
    with pytest.raises(error, match=pattern):
        MultiHeadAttention(*args)


@pytest.mark.parametrize(
    ("shapes", "error", "pattern"),
    [
        (((2, 5, 12), (2, 5, 16), (2, 5, 16)), ValueError, "query must have last dimension"),
        (((2, 5, 16), (2, 6, 16), (2, 7, 16)), ValueError, r"key \(2, 6, 16\), value \(2, 7, 16\)"),
        (((2, 5, 16), (3, 6, 16), (3, 6, 16)), ValueError, r"query \(2, 5, 16\), key \(3, 6, 16\)"),
        (((5, 16), (5, 16), (5, 16)), ValueError, "query must have 3 dimensions"),
    ],
)
def test_multi_head_bad_input_shapes(shapes, error, pattern):
    mha = MultiHeadAttention(16, 4)
    with pytest.raises(error, match=pattern):
        mha(*(torch.zeros(s) for s in shapes))


def test_multi_head_bad_masks():
    mha = MultiHeadAttention(16, 4)
    x = _randn(4, 5, 16)
    # (B, L_q, L_k) with B == num_heads would broadcast over heads without an error.
    with pytest.raises(ValueError, match=r"mask of shape \(4, 5, 5\) is ambiguous"):
        mha(x, x, x, torch.ones(4, 5, 5, dtype=torch.bool))
    with pytest.raises(ValueError, match=r"mask of shape \(3, 1, 1, 5\)"):
        mha(x, x, x, padding_mask(TOKENS, 0))  # batch 3 vs batch 4
    for need_weights in (True, False):
        with pytest.raises(TypeError, match="mask must be a boolean"):
            mha(x, x, x, torch.zeros(5, 5), need_weights=need_weights)
    with pytest.raises(TypeError, match="query must be a floating"):
        mha(x.long(), x, x)
    # A (1, L_q, L_k) mask is unambiguous and accepted.
    out, _ = mha(x, x, x, causal_mask(5)[None])
    torch.testing.assert_close(out, mha(x, x, x, causal_mask(5))[0])
