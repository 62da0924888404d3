"""Incremental decoding with a key/value cache (notebook 15): feeding only the new tokens, with
the earlier keys and values cached, gives the same logits and the same tokens as re-running the
whole sequence, for every positional scheme: each new token must get its true position."""

from __future__ import annotations

import pytest
import torch

from helpers import seed_everything
from helpers.attention import KVCache, LayerKVCache, MultiHeadAttention
from helpers.encodings import POSITION_SCHEMES, RotaryPositionalAttention
from helpers.transformer import (
    DecoderOnlyTransformer,
    TorchReferenceTransformer,
    Transformer,
    generate,
    greedy_decode,
)

pytestmark = pytest.mark.usefixtures("one_thread")  # tests/conftest.py

SCHEMES = [*POSITION_SCHEMES, "alibi", "relative"]
SIZE = {"d_model": 16, "num_heads": 2, "num_layers": 2, "d_ff": 32}


def decoder_only(scheme: str, **kwargs) -> DecoderOnlyTransformer:
    seed_everything(0)
    model = DecoderOnlyTransformer(11, **SIZE, max_len=32, positional=scheme, **kwargs).eval()
    if scheme == "relative":  # trained-looking tables: the default init is nearly zero
        for layer in model.layers:
            torch.nn.init.normal_(layer.self_attn.position.keys.weight)
    return model


def tokens(batch: int, length: int, seed: int = 1) -> torch.Tensor:
    return torch.randint(3, 11, (batch, length), generator=torch.Generator().manual_seed(seed))


def test_every_scheme_is_tested():
    assert set(SCHEMES) >= {"none", "sinusoidal", "learned", "rotary", "alibi", "relative"}


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_decoder_only_cached_logits_equal_the_full_pass(scheme, norm_first):
    model = decoder_only(scheme, norm_first=norm_first)
    x = tokens(3, 9)
    full = model(x)  # (3, 9, vocab)
    cache = KVCache(model.num_layers)
    pieces = [model(x[:, :4], cache=cache)]  # a 4-token prompt, then one token at a time
    for t in range(4, 9):
        pieces.append(model(x[:, t : t + 1], cache=cache))
    assert cache.length == 9
    torch.testing.assert_close(torch.cat(pieces, dim=1), full, atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_decoder_only_chunks_of_several_new_tokens(scheme):
    model = decoder_only(scheme)
    x = tokens(2, 10)
    cache = KVCache(model.num_layers)
    pieces = [
        model(x[:, :3], cache=cache),
        model(x[:, 3:7], cache=cache),
        model(x[:, 7:], cache=cache),
    ]
    torch.testing.assert_close(torch.cat(pieces, dim=1), model(x), atol=1e-5, rtol=1e-5)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_generate_gives_the_same_tokens_with_and_without_the_cache(scheme):
    model = decoder_only(scheme)
    prompt = tokens(3, 4)
    cached = generate(model, prompt, 12, use_cache=True)
    uncached = generate(model, prompt, 12, use_cache=False)
    assert cached.shape == (3, 16)
    assert torch.equal(cached, uncached)
    assert torch.equal(cached[:, :4], prompt)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("scheme", SCHEMES)
def test_encoder_decoder_cached_decoding_equals_the_full_pass(scheme, norm_first):
    seed_everything(0)
    model = Transformer(11, 11, **SIZE, dropout=0.0, positional=scheme, norm_first=norm_first)
    model.eval()
    src, tgt = tokens(2, 6), tokens(2, 7, seed=2)
    src[1, 4:] = 0
    src_mask = (src != 0)[:, None, None, :]
    memory = model.encode(src, src_mask)
    full = model.decode(tgt, memory, src_mask)
    cache = KVCache(model.num_layers)
    steps = [model.decode(tgt[:, t : t + 1], memory, src_mask, cache=cache) for t in range(7)]
    torch.testing.assert_close(torch.cat(steps, dim=1), full, atol=1e-5, rtol=1e-5)
    greedy = greedy_decode(model, src, 8, bos_id=1, eos_id=2, src_mask=src_mask)
    cached = greedy_decode(model, src, 8, bos_id=1, eos_id=2, src_mask=src_mask, use_cache=True)
    assert torch.equal(greedy, cached)


def test_positions_restarting_at_zero_break_the_cache():
    """The classic bug: every new token fed at position 0. Its logits differ from the truth."""
    model = decoder_only("rotary")
    x = tokens(1, 6)
    cache = KVCache(model.num_layers)
    model(x[:, :5], cache=cache)
    right = model(x[:, 5:], cache=cache)[:, -1]
    torch.testing.assert_close(right, model(x)[:, -1], atol=1e-5, rtol=1e-5)
    wrong = model(x[:, 5:])[:, -1]  # no cache: the token alone, at position 0
    assert not torch.allclose(wrong, right, atol=1e-3)


def test_layer_cache_appends_along_the_sequence():
    cache = LayerKVCache()
    assert cache.length == 0
    k, v = cache.extend(torch.zeros(1, 2, 3, 4), torch.ones(1, 2, 3, 4))
    assert cache.length == 3 and k.shape == v.shape == (1, 2, 3, 4)
    k, v = cache.extend(torch.ones(1, 2, 1, 4), torch.zeros(1, 2, 1, 4))
    assert cache.length == 4 and k[..., 3, :].eq(1).all() and v[..., :3, :].eq(1).all()


def test_attention_with_a_cache_attends_to_every_cached_key():
    torch.manual_seed(0)
    attention = MultiHeadAttention(8, 2, position=RotaryPositionalAttention).eval()
    x = torch.randn(1, 5, 8)
    causal = torch.ones(5, 5, dtype=torch.bool).tril()
    full, _ = attention(x, x, x, causal)
    cache = LayerKVCache()
    first, _ = attention(x[:, :4], x[:, :4], x[:, :4], causal[:4, :4], cache=cache)
    last, weights = attention(x[:, 4:], x[:, 4:], x[:, 4:], cache=cache)
    assert weights.shape == (1, 2, 1, 5)
    torch.testing.assert_close(torch.cat([first, last], dim=1), full, atol=1e-6, rtol=1e-6)


def test_cache_errors_name_what_is_wrong():
    model = decoder_only("sinusoidal")
    with pytest.raises(TypeError, match="cache must be a KVCache"):
        model(tokens(1, 2), cache=[])
    with pytest.raises(ValueError, match="one slot per layer"):
        model(tokens(1, 2), cache=KVCache(3))
    with pytest.raises(TypeError, match="cache must be a LayerKVCache"):
        MultiHeadAttention(8, 2)(
            torch.zeros(1, 1, 8), torch.zeros(1, 1, 8), torch.zeros(1, 1, 8), cache=KVCache(1)
        )
    with pytest.raises(ValueError, match="num_layers"):
        KVCache(0)
    with pytest.raises(ValueError, match="use_cache=True needs"):
        greedy_decode(
            TorchReferenceTransformer(11, 11, d_model=8, num_heads=2),
            tokens(1, 3),
            2,
            1,
            use_cache=True,
        )
    with pytest.raises(TypeError, match="use_cache must be a bool"):
        generate(model, tokens(1, 2), 2, use_cache="yes")


def test_a_cache_past_max_len_is_refused():
    model = decoder_only("learned")
    cache = KVCache(model.num_layers)
    model(tokens(1, 30), cache=cache)
    with pytest.raises(ValueError, match="offset \\+ seq_len=33 is longer than max_len=32"):
        model(tokens(1, 3), cache=cache)


def test_generate_restores_training_mode_and_checks_its_arguments():
    model = decoder_only("none").train()
    generate(model, tokens(1, 2), 1)
    assert model.training
    with pytest.raises(ValueError, match="max_new_tokens"):
        generate(model, tokens(1, 2), 0)
    with pytest.raises(ValueError, match="prompt"):
        generate(model, tokens(1, 0), 1)
    with pytest.raises(TypeError, match="prompt"):
        generate(model, tokens(1, 2).float(), 1)
    with pytest.raises(TypeError, match="model"):
        generate(torch.nn.Linear(2, 2), tokens(1, 2), 1)


def test_evaluate_decodes_with_the_cache_when_the_model_takes_one():
    from helpers.training import evaluate, exact_match, token_accuracy

    seed_everything(0)
    model = Transformer(11, 11, **SIZE, dropout=0.0).eval()
    src = tokens(6, 5)
    tgt = torch.cat([torch.ones(6, 1, dtype=torch.long), src.flip(1), torch.full((6, 1), 2)], 1)
    scores = evaluate(model, src, tgt, bos_id=1, eos_id=2)
    uncached = greedy_decode(model, src, tgt.shape[1] - 1, 1, 2, use_cache=False)
    assert scores == {
        "token_accuracy": token_accuracy(uncached, tgt[:, 1:]),
        "exact_match": exact_match(uncached, tgt[:, 1:]),
    }
    reference = TorchReferenceTransformer(11, 11, d_model=16, num_heads=2).eval()
    assert set(evaluate(reference, src, tgt, bos_id=1, eos_id=2)) == {
        "token_accuracy",
        "exact_match",
    }
