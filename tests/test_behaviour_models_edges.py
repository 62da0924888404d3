"""Models and attention at their edges: masks of the wrong shape, the fused path's guarantees,
the reference model in PyTorch's fast inference path, initialisation, and error messages that
name the right argument."""

from __future__ import annotations

import math

import pytest
import torch
from test_transformer import SMALL, copy_into_reference, random_tokens, small_transformer

from helpers.attention import MultiHeadAttention, scaled_dot_product_attention
from helpers.encodings import RelativePositionalAttention
from helpers.transformer import (
    DecoderOnlyTransformer,
    EncoderLayer,
    FeedForward,
    TorchReferenceTransformer,
    Transformer,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


# ------------------------------------------------------------ the reference model


@pytest.mark.parametrize("norm_first", [False, True])
def test_reference_equals_ours_in_torchs_inference_fast_path(norm_first):
    """Under no_grad in eval mode PyTorch may take its nested-tensor fast path, which writes
    zeros at padded positions: the reference turns it off, so memory stays comparable."""
    ours = small_transformer(norm_first=norm_first)
    ref = TorchReferenceTransformer(11, 13, **(SMALL | {"norm_first": norm_first})).eval()
    copy_into_reference(ours, ref)
    src = random_tokens(3, 7)
    src[0, 4:] = 0
    src_mask = (src != 0)[:, None, None, :]
    with torch.no_grad():
        torch.testing.assert_close(ref.encode(src, src_mask), ours.encode(src, src_mask))


def test_reference_takes_a_full_target_mask_of_length_two():
    ours, ref = small_transformer(), TorchReferenceTransformer(11, 13, **SMALL).eval()
    copy_into_reference(ours, ref)
    src, tgt = random_tokens(2, 5), random_tokens(2, 2, seed=3)
    tgt_mask = torch.ones(2, 1, 2, 2, dtype=torch.bool)
    torch.testing.assert_close(ref(src, tgt, None, tgt_mask), ours(src, tgt, None, tgt_mask))


def test_reference_embeddings_apply_its_dropout():
    torch.manual_seed(0)
    ref = TorchReferenceTransformer(11, 13, **(SMALL | {"dropout": 0.5})).train()
    for embedding in (ref.src_embedding, ref.tgt_embedding):
        out = embedding(random_tokens(4, 16))
        assert 0.35 < (out == 0).float().mean().item() < 0.65


# ------------------------------------------------------------ masks of the wrong shape

BATCH, S, T = 2, 5, 4


def src_tgt():
    return random_tokens(BATCH, S), random_tokens(BATCH, T, seed=2)


def bool_mask(*shape):
    return torch.ones(*shape, dtype=torch.bool)


MODELS = {
    "ours": lambda: small_transformer(),
    "reference": lambda: TorchReferenceTransformer(11, 13, **SMALL).eval(),
}


@pytest.mark.parametrize("which", MODELS)
@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda m, s, t: m.encode(s, bool_mask(BATCH, 2, 1, S)), "src_mask"),
        (lambda m, s, t: m.encode(s, bool_mask(BATCH, 1, 2, S)), "src_mask"),
        (lambda m, s, t: m.decode(t, m.encode(s), bool_mask(BATCH, 2, 1, S)), "src_mask"),
        (lambda m, s, t: m.decode(t, m.encode(s), bool_mask(BATCH, 1, 2, S)), "src_mask"),
        (lambda m, s, t: m.decode(t, m.encode(s), bool_mask(BATCH, 1, 1, S + 1)), "src_mask"),
        (lambda m, s, t: m.decode(t, m.encode(s), None, bool_mask(BATCH, 2, T, T)), "tgt_mask"),
        (lambda m, s, t: m.decode(t, m.encode(s), None, bool_mask(BATCH, 1, T, T + 1)), "tgt_mask"),
    ],
)
def test_masks_must_be_batch_one_queries_keys(which, call, name):
    model = MODELS[which]()
    src, tgt = src_tgt()
    with pytest.raises(ValueError, match=name):
        call(model, src, tgt)


def test_decoder_only_mask_has_no_head_axis():
    model = DecoderOnlyTransformer(7, d_model=8, num_heads=2, num_layers=1, d_ff=8)
    tokens = random_tokens(2, 3, high=7)
    model(tokens, bool_mask(2, 1, 3, 3))
    with pytest.raises(ValueError, match="mask"):
        model(tokens, bool_mask(2, 2, 3, 3))


# ------------------------------------------------------------ blocks


def test_weight_matrices_are_xavier_initialised():
    d_model = 64
    model = Transformer(11, 13, d_model=d_model, num_heads=4, num_layers=1, d_ff=d_model)
    weight = model.encoder_layers[0].self_attn.q_proj.weight
    xavier_bound = math.sqrt(6 / (2 * d_model))  # sqrt(3 / d): PyTorch's default is 1 / sqrt(d)
    assert weight.abs().max() <= xavier_bound
    assert (weight.abs() > 1 / math.sqrt(d_model)).float().mean() > 0.3


def test_feed_forward_acts_on_the_last_dimension_of_any_rank():
    ff = FeedForward(4, 8)
    for shape in ((4,), (3, 4), (2, 3, 4), (2, 2, 3, 4)):
        assert ff(torch.ones(shape)).shape == shape
    with pytest.raises(ValueError, match="x must have at least 1"):
        ff(torch.tensor(1.0))


def test_encoder_layer_returns_no_weights_unless_asked():
    layer = EncoderLayer(8, 2, 16).eval()
    x = torch.randn(1, 3, 8)
    assert layer(x)[1] is None
    assert layer(x, need_weights=True)[1].shape == (1, 2, 3, 3)
    with pytest.raises(TypeError, match="the layer's weights"):
        layer(x.double())


# ------------------------------------------------------------ multi-head attention


def mha(**kwargs) -> MultiHeadAttention:
    torch.manual_seed(0)
    return MultiHeadAttention(8, 2, **kwargs).eval()


def test_a_broadcast_key_padding_row_is_not_ambiguous():
    x = torch.randn(3, 3, 8)  # batch == L_q == 3
    mask = torch.tensor([[True, True, False]])  # (1, L_k): the same keys for every query
    out, weights = mha()(x, x, x, mask)
    assert torch.all(weights[..., 2] == 0)


def test_one_query_with_a_one_row_mask_is_not_ambiguous():
    q, kv = torch.randn(1, 1, 8), torch.randn(1, 3, 8)
    out, weights = mha()(q, kv, kv, torch.tensor([[True, False, True]]))
    # both readings of a (1, 3) mask agree here: key 1 is hidden from the one query
    expected, _ = mha()(q, kv, kv, torch.tensor([[[[True, False, True]]]]))
    torch.testing.assert_close(out, expected, rtol=0, atol=0)
    assert weights[0, :, 0, 1].eq(0).all() and weights[0, :, 0, [0, 2]].gt(0).all()


def test_a_two_row_key_padding_mask_at_batch_two_is_ambiguous():
    x = torch.randn(2, 2, 8)
    with pytest.raises(ValueError, match="ambiguous when batch size == L_q == 2"):
        mha()(x, x, x, torch.tensor([[True, True], [True, False]]))


def test_attention_flags_are_named_when_not_bools():
    with pytest.raises(TypeError, match="bias must be a bool"):
        MultiHeadAttention(8, 2, bias="yes")
    with pytest.raises(TypeError, match="values must be a bool"):
        RelativePositionalAttention(4, 2, values="yes")


def test_attention_names_the_input_with_the_wrong_dtype():
    x = torch.randn(1, 3, 8)
    with pytest.raises(TypeError, match="key .*the module's weights"):
        mha()(x, x.double(), x)
    with pytest.raises(TypeError, match="value"):
        mha()(x, x, x.long())


@pytest.mark.parametrize("need_weights", [True, False])
def test_a_float_mask_is_refused_on_both_paths(need_weights):
    x = torch.randn(1, 3, 8)
    with pytest.raises(TypeError, match="mask must be a boolean"):
        mha()(x, x, x, torch.ones(3, 3), need_weights=need_weights)


def test_the_fused_path_refuses_a_boolean_attn_bias():
    x = torch.randn(1, 3, 8)
    with pytest.raises(TypeError, match="attn_bias must be a floating-point"):
        mha()(x, x, x, need_weights=False, attn_bias=torch.ones(3, 3, dtype=torch.bool))


@pytest.mark.parametrize("with_bias", [False, True])
def test_the_fused_path_zeroes_a_row_the_mask_hides_entirely(with_bias):
    x = torch.randn(1, 3, 8)
    mask = torch.tensor([[False, False, False], [True, True, False], [True, True, True]])
    bias = torch.zeros(3, 3) if with_bias else None
    attention = mha()
    fused, _ = attention(x, x, x, mask, need_weights=False, attn_bias=bias)
    readable, _ = attention(x, x, x, mask, need_weights=True, attn_bias=bias)
    assert not fused.isnan().any()
    torch.testing.assert_close(fused, readable)


@pytest.mark.parametrize("use_bias", [False, True])
def test_the_fused_path_applies_dropout_with_a_mask(use_bias):
    x = torch.randn(1, 6, 8)
    attention = mha(dropout=0.5)
    mask = torch.ones(6, 6, dtype=torch.bool).tril()
    bias = torch.zeros(6, 6) if use_bias else None
    evaluated, _ = attention(x, x, x, mask, need_weights=False, attn_bias=bias)
    attention.train()
    trained, _ = attention(x, x, x, mask, need_weights=False, attn_bias=bias)
    assert not torch.allclose(trained, evaluated)


def test_sdpa_names_v_when_its_dtype_is_wrong():
    q = torch.randn(2, 4)
    with pytest.raises(TypeError, match="v must be a floating-point"):
        scaled_dot_product_attention(q, q, q.long())
