"""Reading any configuration: a bank of real 2024-2026 configurations and a reader that turns
one into a per-layer table of position (notebook 18).

:data:`MODEL_CONFIGS` holds, for each model, the configuration keys that decide position (and
the sizes they need), copied from the released model's ``config.json`` as named in
``source``; where only ``transformers``' class default is known, ``source`` says so. Values
that are not about position (vocabulary, feed-forward widths, experts) are left out: the
configuration class fills them with its defaults. :func:`build_config` makes the
``transformers`` configuration object (no download).

:func:`per_layer_table` reads a configuration, with the course's own functions, into one
:class:`LayerPosition` per layer: does the layer rotate, with which base, how many features,
which scaling rule, which window or chunk, which query temperature. The tests compare every
row of every entry with what ``transformers`` computes from the same configuration.

Where a rule lives matters: most are configuration keys, but Cohere2's "no position on the
global layers" is in its code (``Cohere2Attention.forward``), not in its ``config.json``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field

import torch

from ._checks import require_choice
from .encodings.per_layer import partial_rotary_frequencies_of, proportional_frequencies
from .encodings.rotary import rotary_frequencies
from .encodings.rotary_scaling import (
    PHI3_LONGROPE_FACTORS,
    _pair_with_rotations,
    scaled_rotary_frequencies,
)

__all__ = ["ModelEntry", "MODEL_CONFIGS", "LayerPosition", "build_config", "per_layer_table"]

# Layer types whose layers have no softmax attention (and so no position of their own).
NO_ATTENTION_TYPES = ("linear_attention", "conv", "mamba")


@dataclass(frozen=True)
class ModelEntry:
    """One bank entry: ``model_type`` (``transformers``' name), the position ``values``, and
    ``source``: where they come from, in words. Read by :func:`per_layer_table` (notebook 18)."""

    model_type: str
    values: Mapping[str, object]
    source: str


def _llama3(factor: float, original: int) -> dict:
    return {
        "rope_type": "llama3", "factor": factor, "low_freq_factor": 1.0,
        "high_freq_factor": 4.0, "original_max_position_embeddings": original,
    }  # fmt: skip


# fmt: off
MODEL_CONFIGS: dict[str, ModelEntry] = {
    "Llama 3.1 8B": ModelEntry("llama", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": _llama3(8.0, 8192)},
        "config.json of meta-llama/Llama-3.1-8B (July 2024)"),
    "Llama 3.2 1B": ModelEntry("llama", {
        "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
        "num_hidden_layers": 16, "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": _llama3(32.0, 8192)},
        "config.json of meta-llama/Llama-3.2-1B (September 2024)"),
    "Llama 4 Scout": ModelEntry("llama4_text", {
        "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 48, "attention_chunk_size": 8192, "rope_theta": 500000.0,
        "rope_scaling": {"rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 1.0, "original_max_position_embeddings": 8192},
        "attn_temperature_tuning": True, "floor_scale": 8192, "attn_scale": 0.1},
        "text_config of meta-llama/Llama-4-Scout-17B-16E's config.json (April 2025); NoPE "
        "layers from the class default (every fourth layer)"),
    "Gemma 2 9B": ModelEntry("gemma2", {
        "hidden_size": 3584, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
        "num_hidden_layers": 42, "sliding_window": 4096, "rope_theta": 10000.0},
        "config.json of google/gemma-2-9b (June 2024); layer types from the class default "
        "(sliding and global alternate)"),
    "Gemma 3 27B": ModelEntry("gemma3_text", {
        "hidden_size": 5376, "num_attention_heads": 32, "num_key_value_heads": 16,
        "head_dim": 128, "num_hidden_layers": 62, "sliding_window": 1024,
        "sliding_window_pattern": 6, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0}},
        "text_config of google/gemma-3-27b-it's config.json (March 2025)"),
    "Gemma 3 4B": ModelEntry("gemma3_text", {
        "hidden_size": 2560, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
        "num_hidden_layers": 34, "sliding_window": 1024, "sliding_window_pattern": 6,
        "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0}},
        "text_config of google/gemma-3-4b-it's config.json (March 2025)"),
    "Gemma 3n (class default)": ModelEntry("gemma3n_text", {},
        "class default of Gemma3nTextConfig in transformers 5.23 (nested rope_parameters: "
        "sliding 10,000, full 1,000,000; four sliding layers to one full)"),
    "Gemma 4 (class default)": ModelEntry("gemma4_text", {
        "num_hidden_layers": 12},
        "class default of Gemma4TextConfig in transformers 5.23 (sliding: default rotary, base "
        "10,000, window 512, head 256; full: proportional, p = 0.25, base 1,000,000, head 512); "
        "12 layers chosen here"),
    "LFM3 (class default)": ModelEntry("lfm3", {"num_hidden_layers": 12},
        "class default of Lfm3Config in transformers 5.23 (full layers proportional, p = 0.5); "
        "12 layers chosen here"),
    "Cohere2 / Command R7B": ModelEntry("cohere2", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "sliding_window": 4096, "sliding_window_pattern": 4,
        "rope_theta": 50000.0},
        "config.json of CohereForAI/c4ai-command-r7b-12-2024 (December 2024)"),
    "Command A": ModelEntry("cohere2", {
        "hidden_size": 12288, "num_attention_heads": 96, "num_key_value_heads": 8,
        "num_hidden_layers": 64, "sliding_window": 4096, "sliding_window_pattern": 4,
        "rope_theta": 50000.0},
        "config.json of CohereLabs/c4ai-command-a-03-2025 (March 2025)"),
    "GPT-OSS 20B": ModelEntry("gpt_oss", {
        "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
        "num_hidden_layers": 24, "sliding_window": 128, "rope_theta": 150000.0,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                         "beta_slow": 1.0, "truncate": False,
                         "original_max_position_embeddings": 4096}},
        "config.json of openai/gpt-oss-20b (August 2025); layer types from the class default "
        "(sliding and full alternate)"),
    "GPT-OSS 120B": ModelEntry("gpt_oss", {
        "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
        "num_hidden_layers": 36, "sliding_window": 128, "rope_theta": 150000.0,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                         "beta_slow": 1.0, "truncate": False,
                         "original_max_position_embeddings": 4096}},
        "config.json of openai/gpt-oss-120b (August 2025)"),
    "DeepSeek-V3": ModelEntry("deepseek_v3", {
        "hidden_size": 7168, "num_attention_heads": 128, "num_key_value_heads": 128,
        "num_hidden_layers": 61, "q_lora_rank": 1536, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000.0,
        "rope_scaling": {"type": "yarn", "factor": 40.0, "beta_fast": 32, "beta_slow": 1,
                         "mscale": 1.0, "mscale_all_dim": 1.0,
                         "original_max_position_embeddings": 4096}},
        "config.json of deepseek-ai/DeepSeek-V3 (December 2024)"),
    "DeepSeek-V2-Lite": ModelEntry("deepseek_v2", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 16,
        "num_hidden_layers": 27, "q_lora_rank": None, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000.0,
        "rope_scaling": {"type": "yarn", "factor": 40.0, "beta_fast": 32, "beta_slow": 1,
                         "mscale": 0.707, "mscale_all_dim": 0.707,
                         "original_max_position_embeddings": 4096}},
        "config.json of deepseek-ai/DeepSeek-V2-Lite (May 2024)"),
    "Mistral Small 4 (class default)": ModelEntry("mistral4", {"num_hidden_layers": 4},
        "class default of Mistral4Config in transformers 5.23 (latent attention, YaRN with "
        "llama_4_scaling_beta); 4 layers chosen here"),
    "Ministral 3 (class default)": ModelEntry("ministral3", {"num_hidden_layers": 4},
        "class default of Ministral3Config in transformers 5.23 (YaRN factor 16 from 16,384, "
        "base 1,000,000, llama_4_scaling_beta 0.1); 4 layers chosen here"),
    "Qwen2.5 7B": ModelEntry("qwen2", {
        "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
        "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "use_sliding_window": False, "sliding_window": 131072},
        "config.json of Qwen/Qwen2.5-7B-Instruct (September 2024)"),
    "Qwen2.5-VL 7B": ModelEntry("qwen2_5_vl_text", {
        "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
        "num_hidden_layers": 28, "max_position_embeddings": 128000, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
        "config.json of Qwen/Qwen2.5-VL-7B-Instruct (January 2025)"),
    "Qwen3 8B": ModelEntry("qwen3", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 36, "max_position_embeddings": 40960, "rope_theta": 1000000.0},
        "config.json of Qwen/Qwen3-8B (April 2025)"),
    "Qwen3-Next 80B-A3B": ModelEntry("qwen3_next", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 2,
        "head_dim": 256, "num_hidden_layers": 48, "full_attention_interval": 4,
        "partial_rotary_factor": 0.25, "rope_theta": 10000000.0,
        "max_position_embeddings": 262144},
        "config.json of Qwen/Qwen3-Next-80B-A3B-Instruct (September 2025)"),
    "GLM-4.5": ModelEntry("glm4_moe", {
        "hidden_size": 5120, "num_attention_heads": 96, "num_key_value_heads": 8,
        "head_dim": 128, "num_hidden_layers": 92, "partial_rotary_factor": 0.5,
        "rope_theta": 1000000.0, "max_position_embeddings": 131072},
        "config.json of zai-org/GLM-4.5 (July 2025)"),
    "SmolLM3 3B": ModelEntry("smollm3", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
        "num_hidden_layers": 36, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
        "no_rope_layer_interval": 4},
        "config.json of HuggingFaceTB/SmolLM3-3B (July 2025)"),
    "SmolLM3 3B + YaRN": ModelEntry("smollm3", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
        "num_hidden_layers": 36, "max_position_embeddings": 131072, "rope_theta": 5000000.0,
        "no_rope_layer_interval": 4,
        "rope_scaling": {"rope_type": "yarn", "factor": 2.0,
                         "original_max_position_embeddings": 65536}},
        "SmolLM3-3B's model card: YaRN factor 2 from 65,536 tokens, added to its config.json "
        "for 128k contexts"),
    "Phi-3 mini 128k (LongRoPE)": ModelEntry("phi3", {
        "hidden_size": 3072, "num_attention_heads": 32, "num_key_value_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
        "rope_scaling": {"type": "longrope",
                         **{k: list(v) for k, v in PHI3_LONGROPE_FACTORS.items()}}},
        "text model of microsoft/Phi-3-vision-128k-instruct's config.json (May 2024); its "
        "factors are PHI3_LONGROPE_FACTORS (notebook 17)"),
    "OLMo 2 7B": ModelEntry("olmo2", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 4096, "rope_theta": 500000.0},
        "config.json of allenai/OLMo-2-1124-7B (November 2024)"),
}
# fmt: on


@dataclass
class LayerPosition:
    """What one layer does with position: ``rope`` (rotates or not), ``rope_type``, ``base``,
    ``rotated_dims`` (features turned by a nonzero angle), ``head_dim``, ``frequencies`` (the
    ``omega_k`` of the rotated pairs, float64, or ``None``), ``attention_factor`` (on cos and
    sin), ``window``, ``chunk``, ``temperature`` (a formula, or ``None``). What :func:`per_layer_table` returns (notebook 18).
    """

    layer: int
    layer_type: str
    rope: bool
    rope_type: str | None
    base: float | None
    rotated_dims: int
    head_dim: int
    frequencies: torch.Tensor | None = field(repr=False)
    attention_factor: float
    window: int | None
    chunk: int | None
    temperature: str | None

    def summary(self) -> str:
        """One short line: ``"rotary yarn base=150000 dims=64 window=128"`` or ``"NoPE ..."``."""
        parts = [f"{self.layer_type:<18}"]
        if self.rope:
            parts.append(f"rotary {self.rope_type} base={self.base:g} dims={self.rotated_dims}")
        else:
            parts.append("no position")
        if self.window is not None:
            parts.append(f"window={self.window}")
        if self.chunk is not None:
            parts.append(f"chunk={self.chunk}")
        if self.temperature is not None:
            parts.append(f"temperature {self.temperature}")
        return " ".join(parts)


def build_config(name: str):
    """The ``transformers`` configuration object of bank entry ``name`` (no download): its
    ``values`` given to the configuration class of its ``model_type``. Used in notebook 18."""
    name = require_choice("name", name, tuple(MODEL_CONFIGS))
    from transformers import AutoConfig  # only here: the rest of helpers does not need it

    entry = MODEL_CONFIGS[name]
    return AutoConfig.for_model(entry.model_type, **dict(entry.values))


def _layer_rope_parameters(config, layer_type: str) -> dict:
    params = dict(config.rope_parameters)
    if layer_type in params and isinstance(params[layer_type], Mapping):
        return dict(params[layer_type])
    return params


def _head_dim(config, index: int) -> int:
    per_layer = getattr(config, "per_layer_config", None)
    if per_layer is not None:
        try:
            return int(per_layer[index].head_dim)
        except (KeyError, IndexError, ValueError, TypeError, AttributeError):
            pass
    head_dim = getattr(config, "head_dim", None)
    return int(head_dim or config.hidden_size // config.num_attention_heads)


def _uses_rope(config, index: int, layer_type: str) -> bool:
    if layer_type in NO_ATTENTION_TYPES:
        return False
    if config.model_type == "cohere2":  # in Cohere2Attention.forward, not in the config
        return layer_type == "sliding_attention"
    no_rope_layers = getattr(config, "no_rope_layers", None)  # Llama 4, SmolLM3: 0 = NoPE
    if no_rope_layers:
        return bool(no_rope_layers[index])
    return True


def _yarn(params: dict, config, dim: int, base: float) -> tuple[torch.Tensor, float]:
    factor = params.get("factor")
    original = params["original_max_position_embeddings"]
    if factor is None:
        factor = config.max_position_embeddings / original
    beta_fast = params.get("beta_fast") or 32.0
    beta_slow = params.get("beta_slow") or 1.0
    if params.get("truncate", True):
        omega, _ = scaled_rotary_frequencies(
            dim, "yarn", factor, base, original, beta_fast, beta_slow
        )
    else:  # GPT-OSS: the ramp's ends not rounded to whole pairs
        omega = rotary_frequencies(dim, base)
        low = max(_pair_with_rotations(beta_fast, dim, base, original), 0)
        high = min(_pair_with_rotations(beta_slow, dim, base, original), dim - 1)
        ramp = ((torch.arange(dim // 2, dtype=torch.float64) - low) / (high - low)).clamp(0, 1)
        omega = omega * (1 - ramp) + omega / factor * ramp

    def mscale(scale: float, m: float = 1.0) -> float:
        return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0

    attention_factor = params.get("attention_factor")
    if attention_factor is None:
        m, m_all = params.get("mscale"), params.get("mscale_all_dim")
        attention_factor = (
            mscale(factor, m) / mscale(factor, m_all) if m and m_all else mscale(factor)
        )
    return omega, float(attention_factor)


def _frequencies(params: dict, config, head_dim: int) -> tuple[torch.Tensor, float, int]:
    """``(omega of the rotated pairs, attention factor, rotated features)``."""
    rope_type = params.get("rope_type", "default")
    base = float(params["rope_theta"])
    p = params.get("partial_rotary_factor", 1.0)
    if rope_type == "proportional":
        omega = proportional_frequencies(head_dim, p, base, params.get("factor", 1.0))
        return omega[omega > 0], 1.0, 2 * int((omega > 0).sum())
    dim = int(head_dim * p)
    if rope_type == "default":
        omega = (
            partial_rotary_frequencies_of(head_dim, p, base)
            if p < 1
            else rotary_frequencies(dim, base)
        )
        return omega, 1.0, dim
    if rope_type == "yarn":
        omega, attention_factor = _yarn(params, config, dim, base)
        return omega, attention_factor, dim
    original = params.get("original_max_position_embeddings") or getattr(
        config, "original_max_position_embeddings", None
    )
    if rope_type == "linear":
        omega, _ = scaled_rotary_frequencies(dim, "linear", params["factor"], base)
        return omega, 1.0, dim
    if rope_type == "llama3":
        omega, _ = scaled_rotary_frequencies(
            dim, "llama3", params["factor"], base, original,
            low_freq_factor=params["low_freq_factor"], high_freq_factor=params["high_freq_factor"],
        )  # fmt: skip
        return omega, 1.0, dim
    if rope_type == "longrope":
        factor = params.get("factor") or config.max_position_embeddings / original
        omega, scale = scaled_rotary_frequencies(
            dim, "longrope", factor, base, original,
            short_factor=params["short_factor"], long_factor=params["long_factor"],
        )  # fmt: skip
        return omega, params.get("attention_factor") or scale, dim
    raise ValueError(f"rope_type {rope_type!r} is not one the reader knows")


def _temperature(config, params: dict, rope: bool) -> str | None:
    if getattr(config, "attn_temperature_tuning", False) and not rope:  # Llama 4, NoPE only
        return f"1 + {config.attn_scale:g} * log1p(floor((t + 1) / {config.floor_scale:g}))"
    beta = params.get("llama_4_scaling_beta")  # Ministral 3, Mistral Small 4: every layer
    if beta:
        return f"1 + {beta:g} * log1p(floor(t / {params['original_max_position_embeddings']}))"
    return None


def per_layer_table(config) -> list[LayerPosition]:
    """Read a ``transformers`` configuration into one :class:`LayerPosition` per layer.

    Uses the text configuration of a multimodal one. For each layer: its type
    (``layer_types``, default all ``"full_attention"``); whether it rotates (no for layers
    without softmax attention, for Cohere2's non-sliding layers, and where ``no_rope_layers``
    says 0); its rotary parameters (nested by layer type or shared) read with the course's
    functions; its window (``sliding_window`` on ``"sliding_attention"`` layers), chunk
    (``attention_chunk_size`` on ``"chunked_attention"`` layers) and query temperature.
    Used in notebook 18.
    """
    if not hasattr(config, "num_hidden_layers") or not hasattr(config, "rope_parameters"):
        raise TypeError(
            f"config must be a transformers configuration with num_hidden_layers and "
            f"rope_parameters, got {type(config).__name__}"
        )
    if hasattr(config, "get_text_config"):
        config = config.get_text_config()
    num_layers = int(config.num_hidden_layers)
    layer_types = list(getattr(config, "layer_types", None) or ["full_attention"] * num_layers)
    rows = []
    for index, layer_type in enumerate(layer_types):
        params = _layer_rope_parameters(config, layer_type)
        rope = _uses_rope(config, index, layer_type)
        head_dim = _head_dim(config, index)
        omega, attention_factor, rotated = (None, 1.0, 0)
        if rope:
            omega, attention_factor, rotated = _frequencies(params, config, head_dim)
        rows.append(
            LayerPosition(
                layer=index,
                layer_type=layer_type,
                rope=rope,
                rope_type=params.get("rope_type", "default") if rope else None,
                base=float(params["rope_theta"]) if rope else None,
                rotated_dims=rotated,
                head_dim=head_dim,
                frequencies=omega,
                attention_factor=attention_factor,
                window=getattr(config, "sliding_window", None)
                if layer_type == "sliding_attention"
                else None,
                chunk=getattr(config, "attention_chunk_size", None)
                if layer_type == "chunked_attention"
                else None,
                temperature=_temperature(config, params, rope)
                if layer_type not in NO_ATTENTION_TYPES
                else None,
            )
        )
    return rows
