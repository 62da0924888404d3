"""Notebook 18's per-layer position helpers against the pinned ``transformers``' own code.

Each model test builds a tiny random ``transformers`` model from its configuration class (no
download), records every attention layer's input and output with forward hooks, gives the
course's :class:`PerLayerAttention` the same weights and checks the outputs are equal, layer by
layer. The helpers' own behaviour tests follow.
"""

from __future__ import annotations

import math
import re

import pytest
import torch
from torch import nn

from helpers.attention import KVCache
from helpers.attention_sinks import chunked_mask, sink_attention, sliding_window_mask
from helpers.encodings import RotaryPositionalAttention
from helpers.encodings.per_layer import (
    QueryTemperature,
    llama4_attention_temperature,
    partial_rotary_frequencies_of,
    proportional_frequencies,
)
from helpers.encodings.rotary import rotary_frequencies
from helpers.encodings.rotary_scaling import scaled_rotary_frequencies
from helpers.transformer import DecoderOnlyTransformer, Transformer, TransformerConfig
from helpers.transformer.per_layer import PerLayerAttention, layer_frequencies

transformers = pytest.importorskip("transformers")
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402

TOL = {"atol": 2e-5, "rtol": 1e-4}


def _record_attention(model, ids):
    """Run ``model`` on ``ids`` and return [(input hidden states, attention output)] per layer."""
    records, handles = [], []
    for layer in model.layers:

        def hook(module, args, kwargs, output, store=records):
            x = kwargs.get("hidden_states", args[0] if args else None)
            store.append((x.detach().clone(), output[0].detach().clone()))

        handles.append(layer.self_attn.register_forward_hook(hook, with_kwargs=True))
    with torch.no_grad():
        model(input_ids=ids)
    for handle in handles:
        handle.remove()
    assert len(records) == len(model.layers)
    return records


def _copy_projections(ours: PerLayerAttention, theirs: nn.Module) -> None:
    for name in ("q_proj", "k_proj", "v_proj", "o_proj"):
        getattr(ours, name).load_state_dict(getattr(theirs, name).state_dict())


def _ids(vocab: int, length: int = 12, batch: int = 2, seed: int = 0) -> torch.Tensor:
    return torch.randint(0, vocab, (batch, length), generator=torch.Generator().manual_seed(seed))


# ---------------------------------------------------------------- Cohere2: rotary only on sliding


def test_cohere2_rotary_on_sliding_layers_nope_on_global_layers_equals_transformers():
    from transformers import Cohere2Config
    from transformers.models.cohere2.modeling_cohere2 import Cohere2Model

    torch.manual_seed(0)
    config = Cohere2Config(
        vocab_size=32, hidden_size=32, initializer_range=0.5, intermediate_size=64, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, sliding_window=4,
        layer_types=["sliding_attention"] * 3 + ["full_attention"],
        rope_parameters={"rope_type": "default", "rope_theta": 50000.0},
    )  # fmt: skip
    config._attn_implementation = "eager"
    model = Cohere2Model(config).eval()
    records = _record_attention(model, _ids(32))
    head_dim = 8
    for index, (x, expected) in enumerate(records):
        sliding = config.layer_types[index] == "sliding_attention"
        ours = PerLayerAttention(
            32, 4, head_dim, num_kv_heads=2, layout="interleaved",
            frequencies=rotary_frequencies(head_dim, 50000.0) if sliding else None,
            window=4 if sliding else None,
        )  # fmt: skip
        _copy_projections(ours, model.layers[index].self_attn)
        torch.testing.assert_close(ours(x), expected, **TOL)
    # The same weights with rotary on the global layer too give another output: the test can fail
    wrong = PerLayerAttention(
        32, 4, head_dim, num_kv_heads=2, layout="interleaved",
        frequencies=rotary_frequencies(head_dim, 50000.0),
    )  # fmt: skip
    _copy_projections(wrong, model.layers[3].self_attn)
    assert not torch.allclose(wrong(records[3][0]), records[3][1], rtol=0.05, atol=1e-3)


# ------------------------------------------ Llama 4: chunked rotary, NoPE with temperature


def test_llama4_chunked_rotary_and_nope_with_temperature_equals_transformers():
    from transformers import Llama4TextConfig
    from transformers.models.llama4.modeling_llama4 import Llama4TextModel

    torch.manual_seed(0)
    config = Llama4TextConfig(
        vocab_size=32, hidden_size=32, initializer_range=0.5, intermediate_size=64, intermediate_size_mlp=64,
        num_hidden_layers=4, num_attention_heads=4, num_key_value_heads=2, head_dim=8,
        attention_chunk_size=4, floor_scale=3, attn_scale=0.5, num_local_experts=2,
    )  # fmt: skip
    config._attn_implementation = "eager"
    assert config.no_rope_layers == [1, 1, 1, 0]  # 1 = uses rope; every fourth layer is NoPE
    model = Llama4TextModel(config).eval()
    records = _record_attention(model, _ids(32))
    theta = config.rope_parameters["rope_theta"]

    class L2(nn.Module):
        def forward(self, x):
            return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + config.rms_norm_eps)

    for index, (x, expected) in enumerate(records):
        rope = bool(config.no_rope_layers[index])
        ours = PerLayerAttention(
            32, 4, 8, num_kv_heads=2, layout="interleaved",
            frequencies=rotary_frequencies(8, theta) if rope else None,
            chunk=4 if rope else None,
            temperature=None if rope else (3.0, 0.5),
            q_norm=L2() if rope else None, k_norm=L2() if rope else None,
        )  # fmt: skip
        _copy_projections(ours, model.layers[index].self_attn)
        torch.testing.assert_close(ours(x), expected, **TOL)
    # Without the temperature the NoPE layer differs (positions 2.. have tau > 1 here)
    plain = PerLayerAttention(32, 4, 8, num_kv_heads=2)
    _copy_projections(plain, model.layers[3].self_attn)
    assert not torch.allclose(plain(records[3][0]), records[3][1], rtol=0.05, atol=1e-3)


# -------------------------------------------- Gemma 4: nested rope_parameters, p-RoPE global


def test_gemma4_default_sliding_and_proportional_global_equals_transformers():
    from transformers.models.gemma4 import Gemma4TextConfig
    from transformers.models.gemma4.modeling_gemma4 import Gemma4TextModel

    torch.manual_seed(0)
    config = Gemma4TextConfig(
        vocab_size=32, hidden_size=32, initializer_range=0.5, intermediate_size=64, num_hidden_layers=4,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, global_head_dim=16,
        sliding_window=4, layer_types=["sliding_attention"] * 3 + ["full_attention"],
        hidden_size_per_layer_input=0, vocab_size_per_layer_input=32,
    )  # fmt: skip
    config._attn_implementation = "eager"
    model = Gemma4TextModel(config).eval()
    records = _record_attention(model, _ids(32))
    params = config.rope_parameters
    assert params["full_attention"]["rope_type"] == "proportional"
    for index, (x, expected) in enumerate(records):
        kind = config.layer_types[index]
        theirs = model.layers[index].self_attn
        head_dim = theirs.head_dim
        ours = PerLayerAttention(
            32, 4, head_dim, num_kv_heads=theirs.k_proj.out_features // head_dim,
            frequencies=layer_frequencies(params[kind], head_dim), layout="half",
            window=4 if kind == "sliding_attention" else None, scaling=1.0,
            q_norm=theirs.q_norm, k_norm=theirs.k_norm, v_norm=theirs.v_norm,
        )  # fmt: skip
        _copy_projections(ours, theirs)
        torch.testing.assert_close(ours(x), expected, **TOL)
    # the global layer really has head_dim 16 and 2 of its 8 pairs rotated
    assert model.layers[3].self_attn.head_dim == 16
    assert int((layer_frequencies(params["full_attention"], 16) > 0).sum()) == 2


# ------------------------------------------------------ GPT-OSS: learned sinks, YaRN, windows


def test_gpt_oss_sinks_window_and_yarn_equal_transformers_eager_attention():
    from transformers import GptOssConfig
    from transformers.models.gpt_oss.modeling_gpt_oss import GptOssModel

    torch.manual_seed(0)
    config = GptOssConfig(
        vocab_size=32, hidden_size=32, initializer_range=0.5, intermediate_size=64, num_hidden_layers=2,
        num_attention_heads=4, num_key_value_heads=2, head_dim=8, sliding_window=4,
        num_local_experts=2, num_experts_per_tok=1, eos_token_id=None, pad_token_id=None,
    )  # fmt: skip
    config._attn_implementation = "eager"
    model = GptOssModel(config).eval()
    with torch.no_grad():
        for layer in model.layers:
            layer.self_attn.sinks.normal_(0.0, 2.0)  # torch.empty: give them values
    records = _record_attention(model, _ids(32))
    rope = config.rope_parameters
    omega, factor = scaled_rotary_frequencies(
        8, "yarn", rope["factor"], rope["rope_theta"], rope["original_max_position_embeddings"]
    )
    expected_omega, expected_factor = ROPE_INIT_FUNCTIONS["yarn"](config)
    assert math.isclose(factor, expected_factor)
    # GPT-OSS's truncate=False moves YaRN's ramp off the integers; the course helper truncates
    for index, (x, expected) in enumerate(records):
        theirs = model.layers[index].self_attn
        ours = PerLayerAttention(
            32, 4, 8, num_kv_heads=2, frequencies=expected_omega.double(), layout="half",
            rotary_scale=expected_factor, sinks=True, bias=True,
            window=4 if config.layer_types[index] == "sliding_attention" else None,
        )  # fmt: skip
        _copy_projections(ours, theirs)
        with torch.no_grad():
            ours.sinks.copy_(theirs.sinks)
        torch.testing.assert_close(ours(x), expected, **TOL)
        with torch.no_grad():
            ours.sinks.zero_()  # a sink of logit 0 is not "no sink": the output changes
        assert not torch.allclose(ours(x), expected, rtol=0.05, atol=1e-3)
    assert omega.shape == expected_omega.shape


# ------------------------------------------------------------------- spectra and temperature


@pytest.mark.parametrize("head_dim", [8, 64, 128, 256, 512])
@pytest.mark.parametrize("p", [0.25, 0.5, 0.75, 1.0])
def test_proportional_and_partial_equal_the_two_transformers_functions(head_dim, p):
    from transformers import Glm4MoeConfig
    from transformers.models.glm4_moe.modeling_glm4_moe import Glm4MoeRotaryEmbedding

    config = Glm4MoeConfig(
        hidden_size=head_dim * 2, num_attention_heads=2, head_dim=head_dim,
        rope_parameters={"rope_type": "proportional", "rope_theta": 1e6,
                         "partial_rotary_factor": p},
    )  # fmt: skip
    proportional, _ = ROPE_INIT_FUNCTIONS["proportional"](config)
    ours = proportional_frequencies(head_dim, p, 1e6)
    torch.testing.assert_close(ours.float(), proportional, rtol=1e-6, atol=0)
    config.rope_parameters = {"rope_type": "default", "rope_theta": 1e6, "partial_rotary_factor": p}
    partial, _ = Glm4MoeRotaryEmbedding.compute_default_rope_parameters(config)
    torch.testing.assert_close(
        partial_rotary_frequencies_of(head_dim, p, 1e6).float(), partial, rtol=1e-6, atol=0
    )
    if (
        p < 1.0 and partial.shape[0] > 1
    ):  # one key, two spectra: different lengths, and different slowest frequency
        assert ours.shape[0] == head_dim // 2 and partial.shape[0] == int(head_dim * p) // 2
        assert float(ours[ours > 0].min()) > 10 * float(partial.min())


def test_proportional_values_by_hand():
    omega = proportional_frequencies(8, 0.5, 100.0)
    torch.testing.assert_close(
        omega, torch.tensor([1.0, 100.0**-0.25, 0.0, 0.0], dtype=torch.float64)
    )
    torch.testing.assert_close(proportional_frequencies(8, 0.5, 100.0, factor=2.0), omega / 2)
    torch.testing.assert_close(
        partial_rotary_frequencies_of(8, 0.5, 100.0), torch.tensor([1.0, 0.1], dtype=torch.float64)
    )


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: proportional_frequencies(7, 0.5, 1e4), ValueError),
        (lambda: proportional_frequencies(8, 0.0, 1e4), ValueError),
        (lambda: proportional_frequencies(8, 1.5, 1e4), ValueError),
        (lambda: proportional_frequencies(8, "half", 1e4), TypeError),
        (lambda: proportional_frequencies(8, 0.5, -1.0), ValueError),
        (lambda: partial_rotary_frequencies_of(8, 0.1, 1e4), ValueError),
        (lambda: llama4_attention_temperature(torch.ones(3, dtype=torch.bool)), TypeError),
        (lambda: llama4_attention_temperature([1, 2]), TypeError),
        (lambda: llama4_attention_temperature(torch.arange(3), floor_scale=0), ValueError),
    ],
)
def test_spectra_and_temperature_reject_bad_arguments(call, error):
    with pytest.raises(error):
        call()


def test_llama4_temperature_values():
    tau = llama4_attention_temperature(torch.tensor([0, 6, 7, 8, 15, 16, 8190, 8191]), 8, 0.1)
    expected = [1.0, 1.0, 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(2), 1 + 0.1 * math.log(3)]
    expected += [1 + 0.1 * math.log(3), 1 + 0.1 * math.log(1024), 1 + 0.1 * math.log(1025)]
    torch.testing.assert_close(tau, torch.tensor(expected), rtol=1e-6, atol=0)
    # Llama 4's defaults: exactly 1 for every position of the first 8,191
    assert torch.equal(llama4_attention_temperature(torch.arange(8191)), torch.ones(8191))


# ------------------------------------------------------------------------ sinks and masks


def test_sink_column_equals_exp_sink_in_the_denominator_and_rows_sum_below_one():
    g = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 3, 5, 4, generator=g, dtype=torch.float64) for _ in range(3))
    sinks = torch.tensor([-1.0, 0.5, 3.0], dtype=torch.float64)
    mask = sliding_window_mask(5, 3)
    out_c, w_c = sink_attention(q, k, v, sinks, mask, method="column")
    out_d, w_d = sink_attention(q, k, v, sinks, mask, method="denominator")
    torch.testing.assert_close(out_c, out_d)
    torch.testing.assert_close(w_c, w_d)
    # by hand for one row: exp(a_j) / (exp(s) + sum exp(a_j))
    a = (q[0, 2, 4] @ k[0, 2, 2:5].T) / 2.0
    by_hand = torch.exp(a) / (math.exp(3.0) + torch.exp(a).sum())
    torch.testing.assert_close(w_c[0, 2, 4, 2:5], by_hand)
    assert torch.all(w_c.sum(-1) < 1.0)  # mass went to the sink
    assert torch.all(w_c[..., ~mask] == 0)
    # a very large sink: the row attends "nowhere", output -> 0
    out, w = sink_attention(q, k, v, torch.full((3,), 60.0, dtype=torch.float64), mask)
    assert float(out.abs().max()) < 1e-15 and float(w.sum(-1).max()) < 1e-20
    # a very negative sink: ordinary softmax
    out, w = sink_attention(q, k, v, torch.full((3,), -1e4, dtype=torch.float64), mask)
    torch.testing.assert_close(w.sum(-1), torch.ones(2, 3, 5, dtype=torch.float64))


def test_sink_dropped_before_normalising_is_a_different_function():
    g = torch.Generator().manual_seed(1)
    q, k, v = (torch.randn(1, 2, 4, 4, generator=g) for _ in range(3))
    sinks = torch.tensor([1.0, 2.0])
    _, w = sink_attention(q, k, v, sinks)
    plain = torch.softmax(q @ k.transpose(-2, -1) / 2.0, dim=-1)  # sink dropped before
    assert not torch.allclose(w, plain, atol=1e-2)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"sinks": torch.zeros(3)}, ValueError),
        ({"sinks": torch.zeros(2, dtype=torch.long)}, TypeError),
        ({"method": "row"}, ValueError),
        ({"mask": torch.ones(4, 4)}, TypeError),
        ({"scaling": "one"}, TypeError),
    ],
)
def test_sink_attention_rejects_bad_arguments(kwargs, error):
    q = k = v = torch.zeros(1, 2, 4, 4)
    args = {"sinks": torch.zeros(2)} | kwargs
    with pytest.raises(error):
        sink_attention(q, k, v, **args)


def test_masks_by_hand():
    assert sliding_window_mask(4, 2).int().tolist() == [
        [1, 0, 0, 0], [1, 1, 0, 0], [0, 1, 1, 0], [0, 0, 1, 1],
    ]  # fmt: skip
    assert chunked_mask(5, 2).int().tolist() == [
        [1, 0, 0, 0, 0], [1, 1, 0, 0, 0], [0, 0, 1, 0, 0], [0, 0, 1, 1, 0], [0, 0, 0, 0, 1],
    ]  # fmt: skip
    assert torch.equal(sliding_window_mask(6, 6), torch.ones(6, 6).tril().bool())
    with pytest.raises(ValueError):
        sliding_window_mask(4, 0)
    with pytest.raises(TypeError):
        chunked_mask(4, 2.0)


# -------------------------------------------------------------------- the layer and the toy


def test_nope_layer_output_depends_on_content_order_only_through_the_causal_mask():
    torch.manual_seed(0)
    layer = PerLayerAttention(8, 2, 4)  # NoPE, causal
    x = torch.randn(1, 5, 8)
    shifted = layer(x, positions=torch.arange(5) + 100)
    torch.testing.assert_close(layer(x), shifted)  # no position: positions are ignored
    rotary = PerLayerAttention(8, 2, 4, frequencies=rotary_frequencies(4))
    rotary.load_state_dict(layer.state_dict())
    torch.testing.assert_close(rotary(x), rotary(x, positions=torch.arange(5) + 100), **TOL)
    assert not torch.allclose(rotary(x), layer(x), rtol=0.05, atol=1e-3)


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"num_kv_heads": 3}, ValueError),
        ({"frequencies": torch.ones(3)}, ValueError),
        ({"layout": "pairs"}, ValueError),
        ({"window": 2, "chunk": 2}, ValueError),
        ({"window": 0}, ValueError),
        ({"temperature": 8.0}, TypeError),
        ({"temperature": (8.0, -1.0)}, ValueError),
        ({"q_norm": "rms"}, TypeError),
    ],
)
def test_per_layer_attention_rejects_bad_arguments(kwargs, error):
    with pytest.raises(error):
        PerLayerAttention(8, 2, 4, **kwargs)


def _per_layer_config(**options) -> TransformerConfig:
    """Three layers, one of each type: sliding rotary (base 100), chunked p-RoPE (p = 0.5),
    global NoPE with Llama 4's temperature."""
    args = {
        "d_model": 16, "num_heads": 2, "num_layers": 3, "d_ff": 32, "dropout": 0.0, "positional": "rotary",
        "layer_types": ("sliding_attention", "chunked_attention", "full_attention"),
        "rope_parameters": {
            "sliding_attention": {"rope_type": "default", "rope_theta": 100.0},
            "chunked_attention": {"rope_type": "proportional", "rope_theta": 1e4,
                                  "partial_rotary_factor": 0.5},
            "full_attention": None,
        },
        "sliding_window": 5, "attention_chunk_size": 6, "attn_temperature_tuning": True,
        "floor_scale": 4.0, "attn_scale": 0.5,
    }  # fmt: skip
    return TransformerConfig(**(args | options))


def test_transformer_config_builds_each_layer_from_its_type():
    config = _per_layer_config()
    assert [config.layer_span(i) for i in range(3)] == [("sliding", 5), ("chunked", 6), None]
    torch.manual_seed(0)
    model = DecoderOnlyTransformer(8, config)
    sliding, chunked, full = (layer.self_attn.position for layer in model.layers)
    assert isinstance(sliding, RotaryPositionalAttention) and sliding.base == 100.0
    assert sliding.frequencies is None  # plain rotary with its type's base
    assert isinstance(chunked, RotaryPositionalAttention)
    torch.testing.assert_close(chunked.frequencies, proportional_frequencies(8, 0.5, 1e4))
    assert int((chunked.frequencies > 0).sum()) == 2  # of 4 pairs, the 2 fastest turn
    assert isinstance(full, QueryTemperature) and (full.floor_scale, full.attn_scale) == (4.0, 0.5)
    # without the temperature the NoPE layer has no position module at all
    plain = DecoderOnlyTransformer(8, _per_layer_config(attn_temperature_tuning=False))
    assert plain.layers[2].self_attn.position is None


def test_per_layer_model_equals_per_layer_attention_layer_by_layer():
    """Each layer of the configured model computes what PerLayerAttention computes from the
    same weights and the same rule: the window, the chunk, p-RoPE, the temperature."""
    config = _per_layer_config()
    torch.manual_seed(0)
    model = DecoderOnlyTransformer(8, config).eval()
    rules = [
        {"frequencies": rotary_frequencies(8, 100.0), "window": 5},
        {"frequencies": proportional_frequencies(8, 0.5, 1e4), "chunk": 6},
        {"temperature": (4.0, 0.5)},
    ]
    x = torch.randn(2, 15, 16)
    for layer, rule in zip(model.layers, rules, strict=True):
        theirs = layer.self_attn
        ours = PerLayerAttention(16, 2, 8, layout="interleaved", bias=True, **rule)
        for name in ("q_proj", "k_proj", "v_proj"):
            getattr(ours, name).load_state_dict(getattr(theirs, name).state_dict())
        ours.o_proj.load_state_dict(theirs.out_proj.state_dict())
        mask = ours.mask(15)
        expected, _ = theirs(x, x, x, mask=mask)
        torch.testing.assert_close(ours(x), expected, rtol=1e-5, atol=1e-5)
    # and the model applies each layer's span: the window reaches the logits
    tokens = torch.randint(0, 8, (1, 15))
    wide = DecoderOnlyTransformer(8, _per_layer_config(sliding_window=15)).eval()
    wide.load_state_dict(model.state_dict())
    assert not torch.allclose(model(tokens), wide(tokens))
    torch.testing.assert_close(model(tokens)[:, :5], wide(tokens)[:, :5])  # t < 5: same keys


def test_per_layer_model_decodes_with_a_cache_as_in_one_pass():
    torch.manual_seed(0)
    model = DecoderOnlyTransformer(8, _per_layer_config()).eval()
    tokens = torch.randint(0, 8, (2, 14))
    full = model(tokens)
    cache = KVCache(model.num_layers)
    first = model(tokens[:, :9], cache=cache)
    rest = model(tokens[:, 9:], cache=cache)
    torch.testing.assert_close(torch.cat([first, rest], dim=1), full, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize(
    ("options", "error", "words"),
    [
        ({"layer_types": ("full_attention",) * 2}, ValueError, "one type per layer"),
        ({"positional": "sinusoidal"}, ValueError, "positional must be 'rotary'"),
        ({"rope_parameters": {"sliding_attention": None}}, ValueError, "'chunked_attention'"),
        ({"sliding_window": None}, TypeError, "sliding_window"),
        ({"nope_layers": (1,)}, ValueError, "not both"),
        ({"layer_types": ("full_attention",) * 3, "sliding_window": 5}, ValueError, "no layer"),
    ],
)
def test_per_layer_options_are_checked(options, error, words):
    with pytest.raises(error, match=re.escape(words)):
        _per_layer_config(**options)


def test_per_layer_options_need_layer_types():
    with pytest.raises(ValueError, match="sliding_window set without layer_types"):
        TransformerConfig(positional="rotary", sliding_window=4)
    with pytest.raises(ValueError, match="attn_temperature_tuning set without layer_types"):
        TransformerConfig(attn_temperature_tuning=True)
    with pytest.raises(ValueError, match="DecoderOnlyTransformer"):
        Transformer(8, 8, _per_layer_config())


def test_query_temperature_scales_queries_by_position_only():
    module = QueryTemperature(floor_scale=4.0, attn_scale=0.5)
    q, k = torch.ones(1, 1, 10, 2), torch.ones(1, 1, 10, 2)
    q2, k2 = module.rotate(q, k, offset=0)
    assert torch.equal(k2, k)
    expected = llama4_attention_temperature(torch.arange(10), 4.0, 0.5)
    torch.testing.assert_close(q2[0, 0, :, 0], expected)
    assert q2[0, 0, 2, 0] == 1.0 and q2[0, 0, 3, 0] == pytest.approx(1 + 0.5 * math.log(2))
    q3, _ = module.rotate(q[..., :2, :], k, offset=8)  # positions 8, 9 after a cache
    torch.testing.assert_close(q3[0, 0, :, 0], expected[8:])
