"""Notebook 18's experiment: lesson 12's task on toy decoders whose layers take their position
from their type (shared by the notebook and ``benchmarks/per_layer_seeds.py``).

Every model is lesson 12's rotary model (:func:`~helpers.extrapolation.build_model`: a
:class:`~helpers.transformer.DecoderOnlyTransformer` of ``MODEL_SIZE``, width 32, 4 heads, 2
layers, feed-forward 64) trained with its recipe (:func:`~helpers.extrapolation.train_on_task`);
only its :class:`~helpers.transformer.TransformerConfig` gains ``layer_types`` and
``rope_parameters``, so only the position of each layer changes (:data:`PER_LAYER_SCHEMES`):

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
from .extrapolation import EVAL_LENGTH, MODEL_SIZE, VOCAB
from .transformer import DecoderOnlyTransformer, TransformerConfig

__all__ = ["PER_LAYER_SCHEMES", "WINDOW", "per_layer_config", "build_per_layer_model"]

WINDOW = 8  # keys a sliding layer sees (a quarter of the training length), and Llama 4's chunk
PER_LAYER_SCHEMES = ("rotary", "cohere2", "llama4", "llama4-no-temperature", "gemma4")
_ROTARY = {"rope_type": "default", "rope_theta": 10000.0}
_P_ROPE = {"rope_type": "proportional", "rope_theta": 10000.0, "partial_rotary_factor": 0.25}


def per_layer_config(scheme: str) -> TransformerConfig:
    """The :class:`~helpers.transformer.TransformerConfig` of ``scheme`` (one of
    :data:`PER_LAYER_SCHEMES`): lesson 12's rotary model with ``layer_types`` and
    ``rope_parameters`` spelled as ``transformers`` spells them. Used by
    :func:`build_per_layer_model` (notebook 18)."""
    scheme = require_choice("scheme", scheme, PER_LAYER_SCHEMES)
    sliding, chunked, full = "sliding_attention", "chunked_attention", "full_attention"
    common = {**MODEL_SIZE, "max_len": EVAL_LENGTH, "positional": "rotary"}
    if scheme == "rotary":
        return TransformerConfig(
            **common, layer_types=(full, full), rope_parameters={full: _ROTARY}
        )
    if scheme in ("cohere2", "gemma4"):
        return TransformerConfig(
            **common,
            layer_types=(sliding, full),
            rope_parameters={sliding: _ROTARY, full: None if scheme == "cohere2" else _P_ROPE},
            sliding_window=WINDOW,
        )
    return TransformerConfig(
        **common,
        layer_types=(chunked, full),
        rope_parameters={chunked: _ROTARY, full: None},
        attention_chunk_size=WINDOW,
        attn_temperature_tuning=scheme == "llama4",
        floor_scale=float(WINDOW),
        attn_scale=0.1,
    )


def build_per_layer_model(scheme: str) -> DecoderOnlyTransformer:
    """An untrained :class:`~helpers.transformer.DecoderOnlyTransformer` for ``scheme``, drawn
    from torch's global generator (seed it first). Used in notebook 18."""
    return DecoderOnlyTransformer(VOCAB, per_layer_config(scheme))
