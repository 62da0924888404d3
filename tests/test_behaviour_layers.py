"""Encoder and decoder layers called on their own (outside the models): they apply and check
their mask, bias and cache; and the models' initialisation of an untied or tied projection."""

from __future__ import annotations

import math

import pytest
import torch

from helpers import seed_everything
from helpers.attention import LayerKVCache, causal_mask
from helpers.transformer import (
    DecoderLayer,
    DecoderOnlyTransformer,
    EncoderLayer,
    TorchReferenceTransformer,
    Transformer,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py

D = 8  # d_model


def _inputs(length: int = 3) -> tuple[torch.Tensor, torch.Tensor]:
    seed_everything(0)
    return torch.randn(1, length, D), torch.randn(1, 4, D)  # x, memory


def _encoder(x, mask=None, attn_bias=None, cache=None):
    seed_everything(1)
    return EncoderLayer(D, 2, 16).eval()(x, mask, attn_bias, cache=cache)[0]


def test_an_encoder_layer_hides_the_keys_its_mask_hides():
    x, _ = _inputs()
    keep_two = torch.tensor([True, True, False])[None, None, None, :]  # (1, 1, 1, 3)
    with torch.no_grad():
        torch.testing.assert_close(_encoder(x, keep_two)[:, :2], _encoder(x[:, :2]))


@pytest.mark.parametrize("kind", ["encoder", "decoder"])
def test_a_layer_with_a_cache_extends_it_and_masks_over_cached_keys(kind):
    """Two tokens then one, with a cache, equal three at once: the cache grows to 2 then 3, and
    the last step's mask covers the 3 keys (2 cached + 1 new)."""
    x, memory = _inputs()
    seed_everything(1)
    layer = (EncoderLayer if kind == "encoder" else DecoderLayer)(D, 2, 16).eval()
    extra = () if kind == "encoder" else (memory,)
    cache = LayerKVCache()
    with torch.no_grad():
        full = layer(x, *extra, causal_mask(3))[0]
        first = layer(x[:, :2], *extra, causal_mask(2), cache=cache)[0]
        assert cache.length == 2
        last = layer(x[:, 2:], *extra, torch.ones(1, 1, 1, 3, dtype=torch.bool), cache=cache)[0]
        assert cache.length == 3
    torch.testing.assert_close(torch.cat([first, last], dim=1), full)


BAD_BIAS = torch.zeros(2, 3, 4)  # (H, L_q, L_k) with 4 keys for 3 queries


@pytest.mark.parametrize(
    "call, words",
    [
        (lambda x, m: EncoderLayer(D, 2, 16)(x, attn_bias=BAD_BIAS), "attn_bias"),
        (lambda x, m: DecoderLayer(D, 2, 16)(x, m, attn_bias=BAD_BIAS), "attn_bias"),
        (lambda x, m: DecoderLayer(D, 2, 16)(x, m, torch.ones(2, 2, dtype=torch.bool)), "(2, 2)"),
        (lambda x, m: DecoderLayer(D, 2, 16)(x, m, None, torch.ones(1, 1, 1, 5).bool()), "mask"),
    ],
    ids=["encoder-bias", "decoder-bias", "decoder-self-mask", "decoder-memory-mask"],
)
def test_a_layer_checks_its_masks_and_bias_before_attending(call, words):
    x, memory = _inputs()
    with pytest.raises(ValueError) as info:
        call(x, memory)
    assert words in str(info.value)


@pytest.mark.parametrize("model", [Transformer, DecoderOnlyTransformer])
def test_an_untied_projection_is_xavier_and_a_tied_one_keeps_the_embedding(model):
    """d_model = 64, vocabulary 8: Xavier's bound sqrt(6 / 72) = 0.289 is above nn.Linear's
    default bound 1/sqrt(64) = 0.125, and the embedding's N(0, 1/64) draws pass 0.289."""
    vocab, d_model = 8, 64
    xavier = math.sqrt(6 / (vocab + d_model))
    args = (vocab, vocab) if model is Transformer else (vocab,)
    size = {"d_model": d_model, "num_heads": 2, "num_layers": 1, "d_ff": 8}
    seed_everything(0)
    untied = model(*args, **size).output_projection.weight.abs().max().item()
    assert 1 / math.sqrt(d_model) < untied <= xavier
    seed_everything(0)
    tied = model(*args, **size, tie_embeddings=True).output_projection.weight
    assert tied.abs().max().item() > xavier
    assert tied.std().item() == pytest.approx(d_model**-0.5, rel=0.1)


def test_the_reference_model_keeps_norm_first_in_its_config():
    size = {"d_model": D, "num_heads": 2, "num_layers": 1, "d_ff": 16}
    assert TorchReferenceTransformer(5, 5, **size, norm_first=True).config.norm_first is True
