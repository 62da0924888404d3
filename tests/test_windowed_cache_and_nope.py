"""Notebook 17's model features: layers without position (``nope_layers``), the windowed
key/value cache with sink tokens (positions by place in the cache, or the text-position
mistake), and dynamic NTK scaling with a cache (the clash of transformers issue 25104, and its
fix: keys cached before rotation)."""

from __future__ import annotations

import pytest
import torch

from helpers import seed_everything
from helpers.attention import KVCache
from helpers.transformer import (
    DecoderOnlyTransformer,
    TransformerConfig,
    WindowedKVCache,
    generate,
    set_rotary_scaling,
)

VOCAB = 20
SIZE = {"d_model": 32, "num_heads": 4, "d_ff": 64, "dropout": 0.0}


def rotary_model(num_layers: int = 1, seed: int = 0, **kwargs) -> DecoderOnlyTransformer:
    seed_everything(seed)
    model = DecoderOnlyTransformer(
        VOCAB, **SIZE, num_layers=num_layers, positional="rotary", **kwargs
    )
    return model.eval()


def tokens(length: int, seed: int = 1) -> torch.Tensor:
    return torch.randint(0, VOCAB, (2, length), generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------------------------- NoPE layers


def test_nope_layers_take_position_out_of_those_layers_only():
    model = rotary_model(8, nope_layers=tuple(range(3, 8, 4)))  # Llama 4 / SmolLM3: every 4th
    without = [layer.self_attn.position is None for layer in model.layers]
    assert without == [False, False, False, True, False, False, False, True]
    assert model.config.nope_layers == (3, 7)


def test_nope_layers_keep_the_seeded_weights():
    plain, nope = rotary_model(4), rotary_model(4, nope_layers=(1, 3))
    assert plain.state_dict().keys() == nope.state_dict().keys()
    assert all(torch.equal(v, nope.state_dict()[k]) for k, v in plain.state_dict().items())
    x = tokens(12)
    assert not torch.allclose(plain(x), nope(x))  # the same weights, other positions


def test_every_layer_nope_is_the_model_without_position():
    seed_everything(3)
    none = DecoderOnlyTransformer(VOCAB, **SIZE, num_layers=2, positional="none").eval()
    all_nope = rotary_model(2, seed=3, nope_layers=(0, 1))
    x = tokens(10)
    torch.testing.assert_close(all_nope(x), none(x), rtol=0, atol=0)


def test_nope_layers_are_sorted_and_deduplicated_and_checked():
    config = TransformerConfig(positional="rotary", num_layers=4, nope_layers=[3, 1, 3])
    assert config.nope_layers == (1, 3)
    with pytest.raises(ValueError, match="num_layers=4"):
        TransformerConfig(positional="rotary", num_layers=4, nope_layers=(4,))
    with pytest.raises(ValueError, match="sinusoidal"):
        TransformerConfig(positional="sinusoidal", nope_layers=(0,))
    with pytest.raises(TypeError, match="nope_layers"):
        TransformerConfig(positional="rotary", nope_layers=3)


# ------------------------------------------------------------------------- the windowed cache


@pytest.mark.parametrize("positions", ["cache", "text"])
def test_a_window_that_evicts_nothing_generates_what_a_plain_cache_does(positions):
    model, prompt = rotary_model(3), tokens(5)
    plain = generate(model, prompt, 20, use_cache=False)
    cache = WindowedKVCache(3, sinks=2, window=30, positions=positions)
    torch.testing.assert_close(generate(model, prompt, 20, cache=cache), plain, rtol=0, atol=0)
    assert cache.length == cache.seen == 24  # 5 + 20 - 1: the last token is never fed


def test_slot_positions_equal_the_model_run_on_the_kept_tokens_alone():
    # one layer: its keys and values depend on the tokens only, so a cache holding the sinks
    # and the window, rotated at their slots, is the model run afresh on those tokens
    model, text = rotary_model(1), tokens(40)
    sinks, window = 2, 6
    cache = WindowedKVCache(1, sinks=sinks, window=window)
    for t in range(text.shape[1]):
        out = model(text[:, t : t + 1], cache=cache)[:, -1]  # (B, vocab)
        kept = [*range(min(sinks, t + 1)), *range(max(sinks, t + 1 - window), t + 1)]
        torch.testing.assert_close(out, model(text[:, kept])[:, -1], rtol=1e-5, atol=1e-5)
        assert cache.length == len(kept) <= sinks + window
    assert cache.seen == 40 and cache.layers[0].position == sinks + window


def test_text_positions_grow_past_the_window_and_change_the_output():
    model, text = rotary_model(2), tokens(30)
    by_slot = WindowedKVCache(2, sinks=1, window=4)
    by_text = WindowedKVCache(2, sinks=1, window=4, positions="text")
    outputs = []
    for t in range(text.shape[1]):
        new = text[:, t : t + 1]
        outputs.append((model(new, cache=by_slot), model(new, cache=by_text)))
    assert by_slot.layers[0].position == 5 and by_text.layers[0].position == 30
    assert by_slot.length == by_text.length == 5
    for t, (slot, text_position) in enumerate(outputs):
        if t < 5:  # nothing evicted yet: the slots are the text positions
            torch.testing.assert_close(slot, text_position, rtol=0, atol=0)
    assert not torch.allclose(outputs[-1][0], outputs[-1][1], atol=1e-3)


def test_the_window_limits_the_new_tokens_and_the_scheme():
    model = rotary_model(1)
    with pytest.raises(ValueError, match="window=4"):
        model(tokens(5), cache=WindowedKVCache(1, sinks=1, window=4))
    seed_everything(0)
    sinusoidal = DecoderOnlyTransformer(VOCAB, **SIZE, num_layers=1)
    with pytest.raises(ValueError, match="sinusoidal"):
        sinusoidal(tokens(3), cache=WindowedKVCache(1))


def test_make_room_keeps_the_sinks_and_the_most_recent_entries():
    cache = WindowedKVCache(1, sinks=2, window=3)
    keys = torch.arange(6.0).reshape(1, 1, 6, 1)  # entries 0 .. 5
    cache.layers[0].extend(keys, keys)
    cache.make_room(1)  # room for one more in 2 + 3: keep 0, 1 and the last two, 4, 5
    assert cache.layers[0].keys.flatten().tolist() == [0.0, 1.0, 4.0, 5.0]
    assert cache.layers[0].values.flatten().tolist() == [0.0, 1.0, 4.0, 5.0]
    assert cache.seen == 6


# ------------------------------------------------------------------------ dynamic NTK, cached


def dynamic_logits(model, text, cache, factor=4.0, original_max_len=8):
    """The last logits at every length, with dynamic NTK's frequencies for that length."""
    out = []
    with torch.no_grad():
        for t in range(text.shape[1]):
            set_rotary_scaling(model, "dynamic", factor, original_max_len, seq_len=t + 1)
            step = (
                model(text[:, : t + 1]) if cache is None else model(text[:, t : t + 1], cache=cache)
            )
            out.append(step[:, -1])
    set_rotary_scaling(model, None)
    return torch.stack(out, 1)  # (B, L, vocab)


def test_dynamic_ntk_with_keys_cached_after_rotation_differs_past_the_original_length():
    model, text = rotary_model(1), tokens(24)
    fresh = dynamic_logits(model, text, None)
    cached = dynamic_logits(model, text, KVCache(1))
    torch.testing.assert_close(cached[:, :8], fresh[:, :8], rtol=1e-5, atol=1e-5)
    assert (cached[:, 9:] - fresh[:, 9:]).abs().amax() > 1e-2  # the base moved under the cache


def test_dynamic_ntk_with_keys_cached_before_rotation_equals_no_cache():
    model, text = rotary_model(1), tokens(24)
    fresh = dynamic_logits(model, text, None)
    fixed = dynamic_logits(model, text, WindowedKVCache(1, sinks=0))
    torch.testing.assert_close(fixed, fresh, rtol=1e-5, atol=1e-5)


def test_generate_with_dynamic_ntk_and_the_fix_matches_no_cache_and_restores_rotary():
    model, prompt = rotary_model(1), tokens(4)
    fresh = generate(model, prompt, 20, use_cache=False, dynamic_ntk=(4.0, 8))
    fixed = generate(model, prompt, 20, cache=WindowedKVCache(1, sinks=0), dynamic_ntk=(4.0, 8))
    torch.testing.assert_close(fixed, fresh, rtol=0, atol=0)
    assert model.layers[0].self_attn.position.frequencies is None  # plain rotary again
    assert not torch.equal(fresh, generate(model, prompt, 20))  # the scaling changed the text


def test_generate_takes_only_an_empty_cache_with_use_cache():
    model, prompt = rotary_model(1), tokens(3)
    used = WindowedKVCache(1)
    model(prompt, cache=used)
    with pytest.raises(ValueError, match="empty"):
        generate(model, prompt, 2, cache=used)
    with pytest.raises(ValueError, match="use_cache"):
        generate(model, prompt, 2, use_cache=False, cache=WindowedKVCache(1))
    with pytest.raises(TypeError, match="dynamic_ntk"):
        generate(model, prompt, 2, dynamic_ntk=4.0)


def test_generate_sets_dynamic_ntk_for_the_length_the_model_is_about_to_see(monkeypatch):
    import helpers.transformer.decoding as decoding

    lengths, original = [], decoding.set_rotary_scaling

    def recording(model, method, *args, **kwargs):
        lengths.append(kwargs.get("seq_len"))
        return original(model, method, *args, **kwargs)

    monkeypatch.setattr(decoding, "set_rotary_scaling", recording)
    generate(rotary_model(1), tokens(4), 3, dynamic_ntk=(4.0, 8))
    assert lengths == [1, 4, 5, 6, None]  # the check, three steps, plain rotary restored
