"""The documented defaults of the public helpers stay what the lessons were written and executed
with: notebook 10 trains with ``train``'s warm-up, clip and progress bar, the data helpers' toy
task is 10 symbols long 16, and the models default to the small configuration the lessons
describe (2 layers, d_ff = 4 d_model, post-LN, max_len 512). Changing one silently changes every
notebook that relies on it, so a change must be made here too, on purpose.
"""

from __future__ import annotations

import inspect

import pytest

from helpers import attention, data, encodings, training, transformer

# The small configuration the lessons describe, shared by the models (see the tests below).
MODEL_DEFAULTS = {
    "d_model": 64,
    "num_heads": 4,
    "num_layers": 2,
    "d_ff": 256,
    "dropout": 0.1,
    "max_len": 512,
    "positional": "sinusoidal",
    "norm_first": False,
    "relative_max_distance": 16,
    "tie_embeddings": False,
}

DEFAULTS = {
    data.make_batch: {"num_symbols": 10, "min_len": 16, "max_len": None, "generator": None},
    data.make_dataset: {"num_symbols": 10, "min_len": 16, "max_len": None, "seed": 0},
    data.batch_stream: {"num_symbols": 10, "min_len": 16, "max_len": None, "seed": 0},
    data.iterate_minibatches: {"shuffle": False, "seed": 0},
    data.apply_task: {"pad_id": 0},
    training.noam_lr: {"factor": 1.0},
    training.noam_scheduler: {"factor": 1.0, "num_steps": None, "cooldown_steps": 0},
    training.sequence_loss: {"pad_id": 0, "label_smoothing": 0.0},
    training.token_accuracy: {"pad_id": 0},
    training.exact_match: {"pad_id": 0},
    training.train_step: {"pad_id": 0, "label_smoothing": 0.0, "clip_norm": 1.0},
    training.train: {
        "warmup_steps": 100,
        "lr_factor": 1.0,
        "cooldown_steps": 0,
        "label_smoothing": 0.0,
        "clip_norm": 1.0,
        "pad_id": 0,
        "progress": True,
        "desc": "training",
    },
    training.evaluate: {"bos_id": 1, "eos_id": 2, "pad_id": 0},
    transformer.FeedForward: {"dropout": 0.0},
    transformer.EncoderLayer: {"dropout": 0.0, "norm_first": False, "position": None},
    transformer.DecoderLayer: {"dropout": 0.0, "norm_first": False, "position": None},
    # The models have no defaults of their own: they take TransformerConfig's (the test below).
    transformer.Transformer: {"config": None},
    transformer.DecoderOnlyTransformer: {"config": None},
    transformer.TransformerConfig: MODEL_DEFAULTS
    | {"nope_layers": ()}  # no NoPE layer
    | {  # one position rule for every layer; Llama 4's released temperature when it is on
        "layer_types": None,
        "rope_parameters": None,
        "sliding_window": None,
        "attention_chunk_size": None,
        "attn_temperature_tuning": False,
        "floor_scale": 8192.0,
        "attn_scale": 0.1,
    },
    transformer.TorchReferenceTransformer: {"config": None},
    transformer.greedy_decode: {"eos_id": None, "src_mask": None, "pad_id": 0, "use_cache": False},
    transformer.generate: {"use_cache": True, "cache": None, "dynamic_ntk": None},
    transformer.WindowedKVCache: {"sinks": 4, "window": None, "positions": "cache"},
    attention.causal_mask: {"device": None},
    attention.MultiHeadAttention: {
        "dropout": 0.0,
        "bias": True,
        "position": None,
    },
    encodings.RotaryPositionalAttention: {"base": 10000.0},
    encodings.consistent_distance: {
        "lengths": (16, 64),
        "max_delta": 8,
        "tol": 1e-9,
        "verbose": True,
    },
    encodings.scaled_rotary_frequencies: {  # YaRN's betas: the paper's 32 and 1
        "base": 10000.0,
        "original_max_len": None,
        "beta_fast": 32.0,
        "beta_slow": 1.0,
        "low_freq_factor": 1.0,  # Llama 3's band: Meta's released 1 and 4
        "high_freq_factor": 4.0,
        "seq_len": None,
        "short_factor": None,
        "long_factor": None,
    },
    transformer.set_rotary_scaling: {"factor": 1.0, "original_max_len": None},
    encodings.RelativePositionalAttention: {"max_distance": 16, "values": False},
}


def defaults(function) -> dict:
    parameters = inspect.signature(function).parameters.values()
    return {p.name: p.default for p in parameters if p.default is not inspect.Parameter.empty}


@pytest.mark.parametrize("function", DEFAULTS, ids=lambda f: f.__qualname__)
def test_documented_defaults(function):
    assert defaults(function) == DEFAULTS[function]


def test_the_models_built_with_nothing_hold_the_config_defaults():
    """One set of defaults (dropout 0.1 included) for the three models, the reference's too."""
    configs = [
        transformer.Transformer(5, 5).config,
        transformer.DecoderOnlyTransformer(5).config,
        transformer.TorchReferenceTransformer(5, 5).config,
    ]
    assert configs == [transformer.TransformerConfig()] * 3
    assert configs[0].dropout == 0.1
