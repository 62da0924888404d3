"""Reading any configuration: a bank of real 2024-2026 configurations and a reader that turns
one into a per-layer table of position (notebook 18).

:data:`MODEL_CONFIGS` holds, for each model, the configuration keys that decide position (and
the sizes they need), copied from the released model's ``config.json`` as named in
``source`` (with its address); where only ``transformers``' class default is known, ``source``
says so. ``checked`` says where every value was checked (copies of the released file in
public repositories, with their commits where known) and what could not be checked;
``verified`` is ``False`` where a value rests on an indirect source. Values
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
    """One bank entry: ``model_type`` (``transformers``' name), the position ``values``,
    ``source`` (the released file or class default they come from, with its address),
    ``checked`` (where each value was checked, and what was not) and ``verified`` (``False``
    where a value could not be checked against the release). Read by :func:`per_layer_table`
    (notebook 18)."""

    model_type: str
    values: Mapping[str, object]
    source: str
    checked: str = ""
    verified: bool = True


def _llama3(factor: float, original: int, high_freq_factor: float = 4.0) -> dict:
    return {
        "rope_type": "llama3", "factor": factor, "low_freq_factor": 1.0,
        "high_freq_factor": high_freq_factor, "original_max_position_embeddings": original,
    }  # fmt: skip


_HF = "huggingface.co/{}/blob/main/config.json"  # cited in words: no URL in code
# Copies of released config.json files in public repositories, used to check the values.
_MLC = "mlc-ai/mlc-llm python/mlc_llm/model/model_preset.py@79d603f0"
_DEEPSEEK_CODE = "deepseek-ai/DeepSeek-V3 inference/model.py ModelArgs@9b4e9788"
_TRT = "NVIDIA/TensorRT-LLM tests/unittest/_torch/modeling/"
_BRIDGE = "NVIDIA-NeMo/Megatron-Bridge src/megatron/bridge/models/"

# fmt: off
MODEL_CONFIGS: dict[str, ModelEntry] = {
    "Llama 3.1 8B": ModelEntry("llama", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": _llama3(8.0, 8192)},
        "config.json of meta-llama/Llama-3.1-8B (July 2024), "
        + _HF.format("meta-llama/Llama-3.1-8B"),
        "every value equal in two copies of the released file: citsjtu2020/LLM-Prof "
        "sglang/Model_Config.md@8434c8d1 (the base model's) and " + _MLC + " 'llama3_1_8b' "
        "(the Instruct model's; same position keys)"),
    "Llama 3.2 1B": ModelEntry("llama", {
        "hidden_size": 2048, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 64,
        "num_hidden_layers": 16, "max_position_embeddings": 131072, "rope_theta": 500000.0,
        "rope_scaling": _llama3(32.0, 8192)},
        "config.json of meta-llama/Llama-3.2-1B (September 2024), "
        + _HF.format("meta-llama/Llama-3.2-1B"),
        "every value equal in " + _MLC + " 'llama3_2_1b' and in kevinstephano/thunder_model_blocks "
        "hf_llama/llama_config.py (meta-llama/Llama-3.2-1B-Instruct at 4e20de36; the Instruct "
        "model has the same position keys)"),
    "Llama 4 Scout": ModelEntry("llama4_text", {
        "hidden_size": 5120, "num_attention_heads": 40, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 48, "max_position_embeddings": 10485760,
        "attention_chunk_size": 8192, "rope_theta": 500000.0,
        "rope_scaling": _llama3(16.0, 8192, high_freq_factor=1.0),
        "no_rope_layers": [1, 1, 1, 0] * 12,
        "attn_temperature_tuning": True, "floor_scale": 8192, "attn_scale": 0.1},
        "text_config of meta-llama/Llama-4-Scout-17B-16E-Instruct's config.json (April 2025), "
        + _HF.format("meta-llama/Llama-4-Scout-17B-16E-Instruct"),
        "Instruct values (llama3 factor 16, high_freq_factor 1, 10,485,760 positions) in three "
        "public copies (neuronx-distributed-inference's Llama 4 test mock, and two engine tests "
        "quoting 'Scout ships factor 16, low and high band factors both 1'). The base "
        "meta-llama/Llama-4-Scout-17B-16E differs: factor 8, high_freq_factor 4, 262,144 "
        "positions (a printed copy of its Llama4Config; " + _BRIDGE + "llama/llama_provider.py "
        "Llama4Experts16ModelProvider also uses factor 8). The file lists no_rope_layers "
        "[1, 1, 1, 0] x 12 and spells attn_temperature_tuning as 4; transformers 5.23 types "
        "that key as bool and rejects 4, so the bank gives True (same truthiness)"),
    "Gemma 2 9B": ModelEntry("gemma2", {
        "hidden_size": 3584, "num_attention_heads": 16, "num_key_value_heads": 8, "head_dim": 256,
        "num_hidden_layers": 42, "sliding_window": 4096, "rope_theta": 10000.0},
        "config.json of google/gemma-2-9b (June 2024), " + _HF.format("google/gemma-2-9b")
        + "; layer types from the class default (sliding and global alternate)",
        "every value equal in " + _MLC + " 'gemma2_9b' (which also has "
        "max_position_embeddings 8192, the class default); the file has no layer_types"),
    "Gemma 3 27B": ModelEntry("gemma3_text", {
        "hidden_size": 5376, "num_attention_heads": 32, "num_key_value_heads": 16,
        "head_dim": 128, "num_hidden_layers": 62, "sliding_window": 1024,
        "sliding_window_pattern": 6, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0}},
        "text_config of google/gemma-3-27b-it's config.json (March 2025), "
        + _HF.format("google/gemma-3-27b-it"),
        "every value equal in " + _BRIDGE + "gemma/gemma3_provider.py@0ec6daf9 "
        "(Gemma3ModelProvider27B: 62 layers, 5376, 32/16 heads, head 128, window 1024, five "
        "local to one global, bases 10,000 local / 1,000,000 global, linear factor 8 on the "
        "global layers only) and in the copy of the file in " + _TRT + "test_modeling_gemma3.py"
        "@fe6fa01d (GEMMA3_27B_CONFIG, layers and window shrunk there). The file itself leaves "
        "rope_theta and rope_local_base_freq to Gemma3TextConfig's defaults, which equal them"),
    "Gemma 3 4B": ModelEntry("gemma3_text", {
        "hidden_size": 2560, "num_attention_heads": 8, "num_key_value_heads": 4, "head_dim": 256,
        "num_hidden_layers": 34, "sliding_window": 1024, "sliding_window_pattern": 6,
        "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
        "rope_scaling": {"rope_type": "linear", "factor": 8.0}},
        "text_config of google/gemma-3-4b-it's config.json (March 2025), "
        + _HF.format("google/gemma-3-4b-it"),
        "every value equal in " + _BRIDGE + "gemma/gemma3_provider.py@0ec6daf9 "
        "(Gemma3ModelProvider4B: 34 layers, 2560, 8/4 heads, head 256, window 1024, five local "
        "to one global, bases 10,000 / 1,000,000, linear factor 8) and in a public engine test "
        "quoting the 4B text config; heads, head width and bases the file leaves to "
        "Gemma3TextConfig's defaults, which equal them"),
    "Gemma 3n (class default)": ModelEntry("gemma3n_text", {},
        "class default of Gemma3nTextConfig in transformers 5.23 (nested rope_parameters: "
        "sliding 10,000, full 1,000,000; four sliding layers to one full)",
        "read from the installed transformers 5.23: rope_parameters {sliding_attention: "
        "default 10,000, full_attention: default 1,000,000}, layer_types four sliding then one "
        "full (35 layers), window 512, head 256"),
    "Gemma 4 (class default)": ModelEntry("gemma4_text", {
        "num_hidden_layers": 12},
        "class default of Gemma4TextConfig in transformers 5.23 (sliding: default rotary, base "
        "10,000, window 512, head 256; full: proportional, p = 0.25, base 1,000,000, head 512); "
        "12 layers chosen here",
        "read from the installed transformers 5.23 (class default: 30 layers, five sliding to "
        "one full); the same bases and p = 0.25 appear in public copies of released Gemma 4 "
        "configs (global_head_dim 512)"),
    "LFM3 (class default)": ModelEntry("lfm3", {"num_hidden_layers": 12},
        "class default of Lfm3Config in transformers 5.23 (full layers proportional, p = 0.5); "
        "12 layers chosen here",
        "read from the installed transformers 5.23: sliding default 10,000 (window 256), full "
        "proportional p = 0.5 base 1,000,000, conv layers without attention, head 128"),
    "Cohere2 / Command R7B": ModelEntry("cohere2", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8,
        "num_hidden_layers": 32, "sliding_window": 4096, "sliding_window_pattern": 4,
        "rope_theta": 50000.0},
        "config.json of CohereLabs/c4ai-command-r7b-12-2024 (December 2024; first published "
        "as CohereForAI/...), " + _HF.format("CohereLabs/c4ai-command-r7b-12-2024"),
        "every value equal in a public port's table of the two Cohere2 releases "
        "(COHERE2_CONFIG: 4096, 32 layers, 32/8 heads, head 128, window 4096, pattern 4, "
        "base 50,000)"),
    "Command A": ModelEntry("cohere2", {
        "hidden_size": 12288, "num_attention_heads": 96, "num_key_value_heads": 8,
        "num_hidden_layers": 64, "sliding_window": 4096, "sliding_window_pattern": 4,
        "rope_theta": 50000.0},
        "config.json of CohereLabs/c4ai-command-a-03-2025 (March 2025), "
        + _HF.format("CohereLabs/c4ai-command-a-03-2025"),
        "every value equal in the same port's table (12288, 64 layers, 96/8 heads, window "
        "4096, pattern 4, base 50,000) and in Command A Vision's; the pattern matches the "
        "Command A report (arXiv:2504.00698): three sliding layers per full one"),
    "GPT-OSS 20B": ModelEntry("gpt_oss", {
        "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
        "num_hidden_layers": 24, "sliding_window": 128, "rope_theta": 150000.0,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                         "beta_slow": 1.0, "truncate": False,
                         "original_max_position_embeddings": 4096}},
        "config.json of openai/gpt-oss-20b (August 2025), " + _HF.format("openai/gpt-oss-20b")
        + "; layer types as listed there (sliding and full alternate, = class default)",
        "every value equal in two verbatim copies of the file (one with transformers_version "
        "4.55.0.dev0, one in tinygrad's GPT-OSS test), including layer_types"),
    "GPT-OSS 120B": ModelEntry("gpt_oss", {
        "hidden_size": 2880, "num_attention_heads": 64, "num_key_value_heads": 8, "head_dim": 64,
        "num_hidden_layers": 36, "sliding_window": 128, "rope_theta": 150000.0,
        "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "yarn", "factor": 32.0, "beta_fast": 32.0,
                         "beta_slow": 1.0, "truncate": False,
                         "original_max_position_embeddings": 4096}},
        "config.json of openai/gpt-oss-120b (August 2025), " + _HF.format("openai/gpt-oss-120b"),
        "every value equal in " + _BRIDGE + "gpt_oss/gpt_oss_provider.py@12bc34a8 "
        "(GPTOSSProvider120B: 36 layers; shared with the 20B: 2880, 64/8 heads, head 64, base "
        "150,000, YaRN factor 32 from 4,096, beta 32/1, correction range not rounded to whole "
        "pairs = truncate False, window 128 on every other layer, 131,072 positions) and in "
        "GptOssConfig's default, documented as 'similar to GPT-OSS-120B'"),
    "DeepSeek-V3": ModelEntry("deepseek_v3", {
        "hidden_size": 7168, "num_attention_heads": 128, "num_key_value_heads": 128,
        "num_hidden_layers": 61, "q_lora_rank": 1536, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000.0,
        "rope_scaling": {"type": "yarn", "factor": 40.0, "beta_fast": 32, "beta_slow": 1,
                         "mscale": 1.0, "mscale_all_dim": 1.0,
                         "original_max_position_embeddings": 4096}},
        "config.json of deepseek-ai/DeepSeek-V3 (December 2024), "
        + _HF.format("deepseek-ai/DeepSeek-V3"),
        "every value equal in a verbatim copy of the file (gitcode cann-recipes-train "
        "llm_rl/deepseek/verl_patches/config.json) and in DeepSeek's own code, " + _DEEPSEEK_CODE
        + " (original_seq_len 4096, rope_theta 10000, rope_factor 40, beta_fast 32, beta_slow 1, "
        "mscale 1.0) with inference/configs/config_671B.json (61 layers, 128 heads, ranks "
        "1536/512, head widths 128/64/128); one public copy giving mscale_all_dim 0.707 "
        "contradicts both and was not followed"),
    "DeepSeek-V2-Lite": ModelEntry("deepseek_v2", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 16,
        "num_hidden_layers": 27, "q_lora_rank": None, "kv_lora_rank": 512,
        "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
        "max_position_embeddings": 163840, "rope_theta": 10000.0,
        "rope_scaling": {"type": "yarn", "factor": 40.0, "beta_fast": 32, "beta_slow": 1,
                         "mscale": 0.707, "mscale_all_dim": 0.707,
                         "original_max_position_embeddings": 4096}},
        "config.json of deepseek-ai/DeepSeek-V2-Lite (May 2024), "
        + _HF.format("deepseek-ai/DeepSeek-V2-Lite"),
        "every value equal in " + _MLC + " 'deepseek_v2_lite' and in a re-saved copy of the file "
        "(q_lora_rank null); DeepSeek's inference/configs/config_16B.json agrees (27 layers, 16 "
        "heads, q_lora_rank 0, mscale 0.707)"),
    "Mistral Small 4 (class default)": ModelEntry("mistral4", {"num_hidden_layers": 4},
        "class default of Mistral4Config in transformers 5.23 (latent attention, YaRN with "
        "llama_4_scaling_beta); 4 layers chosen here",
        "read from the installed transformers 5.23: YaRN factor 128 from 8,192, base 10,000, "
        "llama_4_scaling_beta 0.1, qk_rope_head_dim 64, rope_interleave True; no released "
        "Mistral Small 4 config.json was found to compare"),
    "Ministral 3 (class default)": ModelEntry("ministral3", {"num_hidden_layers": 4},
        "class default of Ministral3Config in transformers 5.23 (YaRN factor 16 from 16,384, "
        "base 1,000,000, llama_4_scaling_beta 0.1); 4 layers chosen here",
        "read from the installed transformers 5.23; the same rope_parameters (yarn, factor "
        "16, original 16,384, base 1,000,000, beta_fast 32, beta_slow 1, mscale 1/1, "
        "llama_4_scaling_beta 0.1) are in the released Ministral-3-3B-Instruct-2512 "
        "text_config, copied in " + _MLC + " 'ministral3_3b_2512'"),
    "Qwen2.5 7B": ModelEntry("qwen2", {
        "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
        "num_hidden_layers": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "use_sliding_window": False, "sliding_window": 131072},
        "config.json of Qwen/Qwen2.5-7B-Instruct (September 2024), "
        + _HF.format("Qwen/Qwen2.5-7B-Instruct"),
        "every value equal in two public verbatim copies of the Instruct file (eos 151645, "
        "transformers 4.43.1); the base Qwen/Qwen2.5-7B has 131,072 positions instead"),
    "Qwen2.5-VL 7B": ModelEntry("qwen2_5_vl_text", {
        "hidden_size": 3584, "num_attention_heads": 28, "num_key_value_heads": 4,
        "num_hidden_layers": 28, "max_position_embeddings": 128000, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
        "config.json of Qwen/Qwen2.5-VL-7B-Instruct (January 2025), "
        + _HF.format("Qwen/Qwen2.5-VL-7B-Instruct"),
        "every value equal in " + _TRT + "test_modeling_qwen2_5vl.py@03dd9bb8 and in a Rust "
        "engine's copy of the file (128,000 positions, base 1e6, mrope [16, 24, 24])"),
    "Qwen3 8B": ModelEntry("qwen3", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
        "num_hidden_layers": 36, "max_position_embeddings": 40960, "rope_theta": 1000000.0},
        "config.json of Qwen/Qwen3-8B (April 2025), " + _HF.format("Qwen/Qwen3-8B"),
        "every value equal in a verbatim copy of the file, committed to the Hub as 'Copy "
        "config.json from Qwen/Qwen3-8B' (huggingface.co/thejaminator/qwen-hook-layer-9"
        "/commit/478fb720f1f3ced834fce0275b55b2732d438edc); the base model's file "
        "(Chen-Oliver/qwen3-8b-base config.json@1e44ee1a) has 32,768 positions instead"),
    "Qwen3-Next 80B-A3B": ModelEntry("qwen3_next", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 2,
        "head_dim": 256, "num_hidden_layers": 48, "full_attention_interval": 4,
        "partial_rotary_factor": 0.25, "rope_theta": 10000000.0,
        "max_position_embeddings": 262144},
        "config.json of Qwen/Qwen3-Next-80B-A3B-Instruct (September 2025), "
        + _HF.format("Qwen/Qwen3-Next-80B-A3B-Instruct"),
        "every value equal in " + _BRIDGE + "qwen/qwen_provider.py@07d0d14a "
        "(Qwen3NextModelProvider80B_A3B, for the Instruct and Thinking releases: 48 layers, "
        "2048, 16 heads, 2 groups, head 256, rotary_base 10,000,000, rotary_percent 0.25, "
        "262,144 tokens, a full layer every 4) and in a fixture script naming the release at "
        "revision 9c7f2fbe (rope_theta 1e7). Copies giving 5,000,000 are of "
        "Qwen/Qwen3-Coder-Next, the same architecture with another base"),
    "GLM-4.5": ModelEntry("glm4_moe", {
        "hidden_size": 5120, "num_attention_heads": 96, "num_key_value_heads": 8,
        "head_dim": 128, "num_hidden_layers": 92, "partial_rotary_factor": 0.5,
        "rope_theta": 1000000.0, "max_position_embeddings": 131072},
        "config.json of zai-org/GLM-4.5 (July 2025), " + _HF.format("zai-org/GLM-4.5"),
        "every value equal in " + _BRIDGE + "glm/glm45_provider.py@5f28ae82 "
        "(GLM45ModelProvider355B: 92 layers, 5120, 96 heads, 8 groups, head 128, rotary_base "
        "1,000,000, rotary_percent 0.5, 131,072 tokens); GLM-4.6/4.7 keep the rotary keys and "
        "raise max_position_embeddings to 202,752"),
    "SmolLM3 3B": ModelEntry("smollm3", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
        "num_hidden_layers": 36, "max_position_embeddings": 65536, "rope_theta": 5000000.0,
        "no_rope_layer_interval": 4, "no_rope_layers": [1, 1, 1, 0] * 9},
        "config.json of HuggingFaceTB/SmolLM3-3B (July 2025), "
        + _HF.format("HuggingFaceTB/SmolLM3-3B"),
        "every value equal in fetchwiki/HuggingFaceTB-SmolLM3-3B config.json@24f7882f, a copy "
        "of the released file (no head_dim: 2048 / 16 = 128; rope_scaling null)"),
    "SmolLM3 3B + YaRN": ModelEntry("smollm3", {
        "hidden_size": 2048, "num_attention_heads": 16, "num_key_value_heads": 4,
        "num_hidden_layers": 36, "max_position_embeddings": 131072, "rope_theta": 5000000.0,
        "no_rope_layer_interval": 4, "no_rope_layers": [1, 1, 1, 0] * 9,
        "rope_scaling": {"factor": 2.0, "original_max_position_embeddings": 65536,
                         "type": "yarn"}},
        "SmolLM3-3B's model card, 'Long context processing': YaRN factor 2 from 65,536 tokens, "
        "'factor': 2.0 #2x65536=131 072, added to its config.json for 128k contexts, "
        "huggingface.co/HuggingFaceTB/SmolLM3-3B",
        "the rope_scaling block as the card prints it (key 'type', not 'rope_type'), read in "
        "fetchwiki/HuggingFaceTB-SmolLM3-3B README.md@24f7882f; the card says to change "
        "max_position_embeddings without a number: 131,072 is its comment's 2 x 65,536"),
    "Phi-3 mini 128k (LongRoPE)": ModelEntry("phi3", {
        "hidden_size": 3072, "num_attention_heads": 32, "num_key_value_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 131072,
        "original_max_position_embeddings": 4096, "rope_theta": 10000.0,
        "rope_scaling": {"type": "longrope",
                         **{k: list(v) for k, v in PHI3_LONGROPE_FACTORS.items()}}},
        "text model of microsoft/Phi-3-vision-128k-instruct's config.json (May 2024), "
        + _HF.format("microsoft/Phi-3-vision-128k-instruct")
        + "; its factors are PHI3_LONGROPE_FACTORS (notebook 17)",
        "all 96 factors equal, digit for digit, in a public copy of this 'su' set for Phi-3 "
        "mini's shape (head 96, 131,072 from 4,096, base 10,000: an OmniGen rotary test); the "
        "file spells the type 'su', the bank 'longrope' (transformers' name). The current "
        "microsoft/Phi-3-mini-128k-instruct (July 2024 update) ships another set (short "
        "factors from 1.0, long up to 64.84): the name means Phi-3 mini's shape, not that file. "
        "Sizes (3072, 32 layers, 32/32 heads, head 96) equal the same copy's; the attribution of "
        "this set to Phi-3-vision's file is notebook 17's and was not re-seen in a copy"),
    "OLMo 2 7B": ModelEntry("olmo2", {
        "hidden_size": 4096, "num_attention_heads": 32, "num_key_value_heads": 32,
        "num_hidden_layers": 32, "max_position_embeddings": 4096, "rope_theta": 500000.0},
        "config.json of allenai/OLMo-2-1124-7B (November 2024), "
        + _HF.format("allenai/OLMo-2-1124-7B"),
        "every value equal in " + _MLC + " 'olmo2_7b'"),
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
