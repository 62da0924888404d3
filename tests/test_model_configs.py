"""Notebook 18's configuration bank: the course's reader against what ``transformers`` computes."""

from __future__ import annotations

import importlib
import inspect
import math

import pytest
import torch

from helpers.model_configs import MODEL_CONFIGS, LayerPosition, build_config, per_layer_table

transformers = pytest.importorskip("transformers")


def _rotary_class(model_type: str):
    """The model's own rotary-embedding class (for its ``compute_default_rope_parameters``)."""
    family = model_type.removesuffix("_text")
    module = importlib.import_module(f"transformers.models.{family}.modeling_{family}")
    for name, obj in vars(module).items():
        if name.endswith("TextRotaryEmbedding") and hasattr(obj, "compute_default_rope_parameters"):
            return obj
    for name, obj in vars(module).items():
        if name.endswith("RotaryEmbedding") and hasattr(obj, "compute_default_rope_parameters"):
            return obj
    raise AssertionError(f"no rotary class in {module.__name__}")


def _transformers_frequencies(config, layer_type: str):
    """``(inv_freq, attention_scaling)`` of the model's own rotary module for ``layer_type``."""
    rotary = _rotary_class(config.model_type)(config)
    if hasattr(rotary, f"{layer_type}_inv_freq"):  # one set per layer type (Gemma 3/4, ...)
        return getattr(rotary, f"{layer_type}_inv_freq"), getattr(
            rotary, f"{layer_type}_attention_scaling"
        )
    return rotary.inv_freq, rotary.attention_scaling


def test_the_bank_holds_at_least_20_configurations_with_sources():
    assert len(MODEL_CONFIGS) >= 20
    for name, entry in MODEL_CONFIGS.items():
        assert (
            "config.json" in entry.source
            or "class default" in entry.source
            or "card" in entry.source
        ), name
    released = [n for n, e in MODEL_CONFIGS.items() if "class default of" not in e.source]
    assert len(released) >= 20


def test_every_entry_says_where_its_values_were_checked():
    for name, entry in MODEL_CONFIGS.items():
        assert len(entry.checked) > 40, name  # a sentence, not a placeholder
        if "class default of" in entry.source:
            assert "transformers 5.23" in entry.checked, name
        else:  # a released file or card: its address
            assert "huggingface.co/" in entry.source, name  # its address, in words
    # an entry whose values could not all be checked says so (verified=False) and why
    assert all("not" in e.checked for e in MODEL_CONFIGS.values() if not e.verified)
    assert [n for n, e in MODEL_CONFIGS.items() if not e.verified] == []


def test_llama4_scout_is_the_instruct_release():
    # the Instruct file's llama3 rule (factor 16, both band factors 1) and length; the base
    # model's file has factor 8, high_freq_factor 4 and 262,144 positions
    entry = MODEL_CONFIGS["Llama 4 Scout"]
    assert "Llama-4-Scout-17B-16E-Instruct" in entry.source
    scaling = entry.values["rope_scaling"]
    assert (scaling["factor"], scaling["high_freq_factor"]) == (16.0, 1.0)
    assert entry.values["max_position_embeddings"] == 10485760
    config = build_config("Llama 4 Scout")
    assert config.no_rope_layers == [1, 1, 1, 0] * 12


def test_smollm3_yarn_is_the_cards_block():
    values = MODEL_CONFIGS["SmolLM3 3B + YaRN"].values
    assert values["rope_scaling"] == {
        "factor": 2.0,
        "original_max_position_embeddings": 65536,
        "type": "yarn",
    }
    assert values["max_position_embeddings"] == 2 * 65536
    rows = per_layer_table(build_config("SmolLM3 3B + YaRN"))
    assert {r.rope_type for r in rows if r.rope} == {"yarn"}


@pytest.mark.parametrize("name", sorted(MODEL_CONFIGS))
def test_reader_equals_transformers_on_every_entry(name):
    config = build_config(name).get_text_config()
    rows = per_layer_table(config)
    assert len(rows) == config.num_hidden_layers
    for row in rows:
        assert isinstance(row, LayerPosition)
        if not row.rope:
            assert row.frequencies is None and row.rotated_dims == 0
            continue
        inv_freq, attention_factor = _transformers_frequencies(config, row.layer_type)
        nonzero = inv_freq[inv_freq > 0].double()
        assert row.rotated_dims == 2 * len(nonzero), (name, row.layer)
        torch.testing.assert_close(row.frequencies, nonzero, rtol=2e-6, atol=0)
        assert math.isclose(row.attention_factor, attention_factor, rel_tol=1e-9), name
    types = getattr(config, "layer_types", None)
    for row in rows:
        expected_window = (
            config.sliding_window if types and types[row.layer] == "sliding_attention" else None
        )
        assert row.window == expected_window


def test_nope_layers_and_temperatures_where_transformers_puts_them():
    from transformers.models.cohere2 import modeling_cohere2
    from transformers.models.ministral3 import modeling_ministral3

    # Cohere2's rule is in its code: rotary only when the layer has a sliding window
    source = inspect.getsource(modeling_cohere2.Cohere2Attention.forward)
    assert (
        "if self.sliding_window is not None:\n            query_states, key_states = apply_rotary"
        in source
    )
    rows = per_layer_table(build_config("Cohere2 / Command R7B"))
    assert [r.rope for r in rows[:8]] == [True, True, True, False] * 2
    # Llama 4: every fourth layer NoPE, temperature there only; chunk on the others
    config = build_config("Llama 4 Scout")
    rows = per_layer_table(config)
    assert [r.rope for r in rows] == [bool(x) for x in config.no_rope_layers]
    assert all((r.temperature is None) == r.rope for r in rows)
    assert all((r.chunk == 8192) == r.rope for r in rows)
    # SmolLM3: the same NoPE pattern, no temperature
    rows = per_layer_table(build_config("SmolLM3 3B"))
    assert sum(not r.rope for r in rows) == 9 and all(r.temperature is None for r in rows)
    # Ministral 3: temperature on every layer, with t (not t + 1) and the original length
    source = inspect.getsource(modeling_ministral3.get_llama_4_attn_scale)
    assert "torch.floor(positions_ids / max_position_embeddings)" in source
    rows = per_layer_table(build_config("Ministral 3 (class default)"))
    assert all(r.rope and r.temperature == "1 + 0.1 * log1p(floor(t / 16384))" for r in rows)


def test_two_meanings_of_partial_rotary_factor_in_the_bank():
    gemma4 = per_layer_table(build_config("Gemma 4 (class default)"))[-1]
    glm = per_layer_table(build_config("GLM-4.5"))[0]
    assert (gemma4.rope_type, gemma4.head_dim, gemma4.rotated_dims) == ("proportional", 512, 128)
    assert (glm.rope_type, glm.head_dim, glm.rotated_dims) == ("default", 128, 64)
    # proportional keeps the full head's fastest frequencies: its slowest is base**(-126/512)
    assert float(gemma4.frequencies.min()) == pytest.approx(1e6 ** (-126 / 512))
    # partial recompresses: its slowest is base**(-62/64), near 1 / base
    assert float(glm.frequencies.min()) == pytest.approx(1e6 ** (-62 / 64))


def test_reader_rejects_what_is_not_a_configuration():
    with pytest.raises(TypeError):
        per_layer_table({"num_hidden_layers": 2})
    with pytest.raises(ValueError):
        build_config("Llama 5")
    row = per_layer_table(build_config("GPT-OSS 20B"))[0]
    assert row.summary() == "sliding_attention  rotary yarn base=150000 dims=64 window=128"
