"""Notebook 18's experiment: lesson 12's task on toy decoders whose layers take their position
from their type (shared by the notebook and ``benchmarks/per_layer_seeds.py``).

Every model has lesson 12's size (``MODEL_SIZE``: width 32, 4 heads, 2 layers, feed-forward 64)
and its recipe (:func:`~helpers.extrapolation.train_on_task`); only the position of each layer
changes (:data:`PER_LAYER_SCHEMES`):

- ``"rotary"``: both layers global with rotary (lesson 12's rotary model, the baseline);
- ``"cohere2"``: layer 0 a sliding window of ``WINDOW`` keys with rotary, layer 1 global with
  no position (Cohere2's rule);
- ``"llama4"``: layer 0 chunks of ``WINDOW`` with rotary, layer 1 global, no position, queries
  scaled by Llama 4's temperature (``floor_scale = WINDOW``, ``attn_scale = 0.1``);
- ``"llama4-no-temperature"``: the same without the temperature;
- ``"gemma4"``: layer 0 sliding with rotary, layer 1 global with p-RoPE (``proportional``,
  p = 0.25: of the head's 4 pairs only the fastest turns).
"""

from __future__ import annotations

from ._checks import require_choice
from .extrapolation import MODEL_SIZE, VOCAB
from .transformer.per_layer import PerLayerConfig, PerLayerDecoder

__all__ = ["PER_LAYER_SCHEMES", "WINDOW", "per_layer_config", "build_per_layer_model"]

WINDOW = 8  # keys a sliding layer sees (a quarter of the training length), and Llama 4's chunk
PER_LAYER_SCHEMES = ("rotary", "cohere2", "llama4", "llama4-no-temperature", "gemma4")
_ROTARY = {"rope_type": "default", "rope_theta": 10000.0}
_P_ROPE = {"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.25}


def per_layer_config(scheme: str) -> PerLayerConfig:
    """The :class:`PerLayerConfig` of ``scheme`` (one of :data:`PER_LAYER_SCHEMES`), lesson 12's
    sizes. Used by :func:`build_per_layer_model` (notebook 18)."""
    scheme = require_choice("scheme", scheme, PER_LAYER_SCHEMES)
    sliding, chunked, full = "sliding_attention", "chunked_attention", "full_attention"
    size = {k: MODEL_SIZE[k] for k in ("d_model", "num_heads", "d_ff")}
    common = {"vocab_size": VOCAB, "sliding_window": WINDOW, "attention_chunk_size": WINDOW}
    common |= {"floor_scale": float(WINDOW), "attn_scale": 0.1, **size}
    if scheme == "rotary":
        return PerLayerConfig(layer_types=[full, full], rope_parameters={full: _ROTARY}, **common)
    if scheme == "cohere2":
        return PerLayerConfig(
            layer_types=[sliding, full], rope_parameters={sliding: _ROTARY, full: None}, **common
        )
    if scheme == "gemma4":
        return PerLayerConfig(
            layer_types=[sliding, full], rope_parameters={sliding: _ROTARY, full: _P_ROPE}, **common
        )
    return PerLayerConfig(
        layer_types=[chunked, full],
        rope_parameters={chunked: _ROTARY, full: None},
        attn_temperature_tuning=scheme == "llama4",
        **common,
    )


def build_per_layer_model(scheme: str) -> PerLayerDecoder:
    """An untrained :class:`PerLayerDecoder` for ``scheme``, drawn from torch's global generator
    (seed it first). Used in notebook 18."""
    return PerLayerDecoder(per_layer_config(scheme))
