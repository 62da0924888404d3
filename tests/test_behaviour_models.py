"""Behaviour of the assembled models that causality and shape checks cannot see: the position
scheme really acts inside attention, the layers really run, pre-LN really is pre-LN (with its
final LayerNorm), and pre-LN layers still pass ALiBi's bias and return cross-attention weights.
"""

import copy

import pytest
import torch
from torch import nn

from helpers import seed_everything
from helpers.attention import causal_mask
from helpers.encodings import alibi_bias
from helpers.transformer import DecoderLayer, DecoderOnlyTransformer, EncoderLayer

SIZES = {"d_model": 16, "num_heads": 2, "num_layers": 2, "d_ff": 32, "max_len": 32}


pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py


def decoder_only(positional: str, norm_first: bool = False) -> DecoderOnlyTransformer:
    seed_everything(0)
    model = DecoderOnlyTransformer(11, positional=positional, norm_first=norm_first, **SIZES)
    for module in model.modules():  # make the relative tables as large as the content terms
        if hasattr(module, "max_distance"):
            nn.init.normal_(module.weight)
    return model.eval()


def tokens() -> torch.Tensor:
    return torch.randint(11, (2, 12), generator=torch.Generator().manual_seed(5))


def clearly_different(a: torch.Tensor, b: torch.Tensor) -> bool:
    return (a - b).abs().max().item() > 1e-3


@pytest.mark.parametrize("positional", ["rotary", "alibi", "relative"])
def test_decoder_only_scheme_acts_inside_attention(positional):
    """Same weights, no scheme: the logits must change (a dropped scheme would leave them)."""
    model = decoder_only(positional)
    plain = decoder_only("none")
    plain.load_state_dict(model.state_dict(), strict=False)  # relative tables have no twin
    with torch.no_grad():
        assert clearly_different(model(tokens()), plain(tokens()))


@pytest.mark.parametrize("positional", ["rotary", "alibi", "relative"])
def test_decoder_only_scheme_makes_logits_depend_on_position(positional):
    """One token repeated: content alone cannot rank the keys, so the first layer attends
    uniformly without position (next test); a scheme inside attention must make the weights
    depend on the offset."""
    model = decoder_only(positional)
    same = torch.full((1, 8), 4)  # one token repeated: content alone cannot rank the keys
    with torch.no_grad():
        _, weights = model(same, need_weights=True)
    last_row = weights[0][0, :, -1, :]  # (H, L): the last query over all 8 keys
    uniform = torch.full_like(last_row, 1 / 8)
    assert clearly_different(last_row, uniform)


def test_decoder_only_without_position_attends_uniformly_to_equal_tokens():
    """The control of the test above: no scheme, equal tokens, uniform causal weights."""
    model = decoder_only("none")
    with torch.no_grad():
        _, weights = model(torch.full((1, 8), 4), need_weights=True)
    torch.testing.assert_close(weights[0][0, :, -1, :], torch.full((2, 8), 1 / 8))


@pytest.mark.parametrize("positional", ["sinusoidal", "rotary", "alibi"])
def test_decoder_only_layers_change_the_logits(positional):
    model = decoder_only(positional)
    assert len(model.layers) == SIZES["num_layers"]
    no_layers = copy.deepcopy(model)
    no_layers.layers = nn.ModuleList()
    with torch.no_grad():
        assert clearly_different(model(tokens()), no_layers(tokens()))


def test_decoder_only_pre_ln_differs_from_post_ln_with_the_same_weights():
    pre, post = decoder_only("sinusoidal", norm_first=True), decoder_only("sinusoidal")
    post.load_state_dict(pre.state_dict(), strict=False)  # all but the final LayerNorm
    assert all(layer.norm_first for layer in pre.layers)
    assert not any(layer.norm_first for layer in post.layers)
    with torch.no_grad():
        assert clearly_different(pre(tokens()), post(tokens()))


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_only_final_layernorm_only_with_pre_ln(norm_first):
    """Pre-LN leaves the residual stream un-normalised, so one LayerNorm closes the stack; the
    projection then reads vectors of mean 0 and variance 1 (the LayerNorm starts as the
    identity affine map). Post-LN layers already end with a LayerNorm: no extra one."""
    model = decoder_only("sinusoidal", norm_first=norm_first)
    assert isinstance(model.final_norm, nn.LayerNorm if norm_first else nn.Identity)
    seen = []
    model.output_projection.register_forward_hook(lambda m, args, out: seen.append(args[0]))
    with torch.no_grad():
        model(tokens())
    x = seen[0]  # (B, L, d_model)
    torch.testing.assert_close(x.mean(-1), torch.zeros(x.shape[:2]), atol=1e-5, rtol=0)
    torch.testing.assert_close(
        x.var(-1, unbiased=False), torch.ones(x.shape[:2]), atol=1e-3, rtol=0
    )
    with torch.no_grad():  # and the final LayerNorm's own parameters act on the logits
        before = model(tokens())
        model.final_norm = nn.Identity()
        after = model(tokens())
    assert clearly_different(before, after) == norm_first


# ------------------------------------------------------------------------ pre-LN layers


def layer_input() -> torch.Tensor:
    return torch.randn(2, 6, 16, generator=torch.Generator().manual_seed(2))


@pytest.mark.parametrize("norm_first", [False, True])
def test_encoder_layer_passes_the_alibi_bias_to_self_attention(norm_first):
    seed_everything(0)
    layer = EncoderLayer(16, 2, 32, norm_first=norm_first).eval()
    x, bias = layer_input(), alibi_bias(6, 2)
    with torch.no_grad():
        plain, _ = layer(x)
        biased, _ = layer(x, attn_bias=bias)
        _, weights = layer(x, attn_bias=bias, need_weights=True)
        expected = torch.softmax(_scores(layer, layer.norm1(x) if norm_first else x) + bias, -1)
    assert clearly_different(plain, biased)
    torch.testing.assert_close(weights, expected)


def _scores(layer: EncoderLayer | DecoderLayer, h: torch.Tensor) -> torch.Tensor:
    """``q k^T / sqrt(d_k)`` of the layer's self-attention for the (normalised) input ``h``."""
    attn = layer.self_attn
    q = attn._split_heads(attn.q_proj(h))
    k = attn._split_heads(attn.k_proj(h))
    return q @ k.transpose(-2, -1) / attn.d_k**0.5


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_passes_the_alibi_bias_to_self_attention(norm_first):
    seed_everything(0)
    layer = DecoderLayer(16, 2, 32, norm_first=norm_first).eval()
    x, memory, bias = layer_input(), layer_input()[:, :4], alibi_bias(6, 2)
    mask = causal_mask(6)
    with torch.no_grad():
        plain, _, _ = layer(x, memory, mask)
        biased, weights, _ = layer(x, memory, mask, attn_bias=bias, need_weights=True)
        scores = _scores(layer, layer.norm1(x) if norm_first else x) + bias
        expected = torch.softmax(scores.masked_fill(~mask, float("-inf")), -1)
    assert clearly_different(plain, biased)
    torch.testing.assert_close(weights, expected)


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_returns_cross_attention_weights_only_when_asked(norm_first):
    seed_everything(0)
    layer = DecoderLayer(16, 2, 32, norm_first=norm_first).eval()
    x, memory = layer_input(), layer_input()[:, :4]
    memory_mask = torch.tensor([True, True, True, False])[None, None, None]  # last key: padding
    with torch.no_grad():
        out, self_w, cross_w = layer(x, memory, causal_mask(6), memory_mask, need_weights=True)
        out_fast, none_self, none_cross = layer(x, memory, causal_mask(6), memory_mask)
    assert self_w.shape == (2, 2, 6, 6) and cross_w.shape == (2, 2, 6, 4)
    torch.testing.assert_close(cross_w.sum(-1), torch.ones(2, 2, 6))
    assert (cross_w[..., 3] == 0).all()
    assert none_self is None and none_cross is None
    torch.testing.assert_close(out_fast, out, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize(
    ("tokens", "error", "message"),
    [
        (torch.zeros(2, 3, 4, dtype=torch.long), ValueError, "tokens must have 2 dimensions"),
        (torch.zeros(3, dtype=torch.long), ValueError, "tokens must have 2 dimensions"),
        (torch.zeros(2, 3), TypeError, "tokens must be an integer"),
    ],
)
def test_decoder_only_names_tokens_it_cannot_read(tokens, error, message):
    with pytest.raises(error, match=message):
        decoder_only("none")(tokens)
