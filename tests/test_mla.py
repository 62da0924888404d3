"""Notebook 18's decoupled-rotary multi-head latent attention against ``DeepseekV3Attention``."""

from __future__ import annotations

import math

import pytest
import torch

from helpers.transformer.mla import (
    DecoupledRotaryMLA,
    kv_cache_bytes_per_token,
    mla_cache_bytes_per_token,
    yarn_softmax_scale,
)

transformers = pytest.importorskip("transformers")
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS  # noqa: E402

SIZES = {"kv_lora_rank": 16, "qk_nope_head_dim": 8, "qk_rope_head_dim": 4, "v_head_dim": 8}


def _tiny_deepseek(interleave: bool, q_lora_rank):
    from transformers import DeepseekV3Config
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import DeepseekV3Model

    torch.manual_seed(0)
    config = DeepseekV3Config(
        vocab_size=32, hidden_size=32, intermediate_size=64, moe_intermediate_size=16,
        num_hidden_layers=2, first_k_dense_replace=2, num_attention_heads=4,
        num_key_value_heads=4, q_lora_rank=q_lora_rank, rope_interleave=interleave,
        initializer_range=0.5, max_position_embeddings=4096 * 40,
        rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0, "factor": 40.0,
                         "original_max_position_embeddings": 4096, "beta_fast": 32,
                         "beta_slow": 1, "mscale": 1.0, "mscale_all_dim": 1.0},
        **SIZES,
    )  # fmt: skip
    config._attn_implementation = "eager"
    return config, DeepseekV3Model(config).eval()


@pytest.mark.parametrize("interleave", [True, False])
@pytest.mark.parametrize("q_lora_rank", [None, 12])
def test_decoupled_rotary_mla_equals_deepseek_v3_attention(interleave, q_lora_rank):
    config, model = _tiny_deepseek(interleave, q_lora_rank)
    records = []
    attention = model.layers[1].self_attn
    handle = attention.register_forward_hook(
        lambda m, a, k, out: records.append((k["hidden_states"], out[0])), with_kwargs=True
    )
    ids = torch.randint(0, 32, (2, 10), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        model(input_ids=ids)
    handle.remove()
    x, expected = records[0]
    omega, attention_factor = ROPE_INIT_FUNCTIONS["yarn"](config)
    assert attention_factor == 1.0  # mscale == mscale_all_dim: no factor on cos/sin...
    scale = yarn_softmax_scale(12, 40.0, 1.0)
    assert math.isclose(scale, attention.scaling)  # ...but one on the softmax
    ours = DecoupledRotaryMLA(
        32, 4, q_lora_rank=q_lora_rank, layout="interleaved" if interleave else "half",
        frequencies=omega.double(), scaling=scale, **SIZES,
    )  # fmt: skip
    missing = ours.load_state_dict(attention.state_dict(), strict=False)
    assert not missing.missing_keys
    with torch.no_grad():
        torch.testing.assert_close(ours(x), expected, atol=2e-5, rtol=1e-4)
        # the absorbed scores are the same numbers
        torch.testing.assert_close(
            ours.scores(x, absorbed=True), ours.scores(x), atol=1e-4, rtol=1e-4
        )
        # the wrong layout for these weights changes the output
        wrong = DecoupledRotaryMLA(
            32, 4, q_lora_rank=q_lora_rank, layout="half" if interleave else "interleaved",
            frequencies=omega.double(), scaling=scale, **SIZES,
        )  # fmt: skip
        wrong.load_state_dict(ours.state_dict())
        assert not torch.allclose(wrong(x), expected, rtol=0.05, atol=1e-3)


def test_shared_rotary_key_is_one_per_token_and_the_score_depends_on_offset_only():
    torch.manual_seed(0)
    mla = DecoupledRotaryMLA(16, 4, **SIZES)
    latent, k_rot = mla.cache_entries(torch.randn(1, 6, 16))
    assert latent.shape == (1, 6, 16) and k_rot.shape == (1, 6, 4)


def test_cache_bytes_for_deepseek_v3_sizes():
    # DeepSeek-V3's config.json: 61 layers, 128 heads, kv_lora_rank 512, qk_rope_head_dim 64,
    # qk_nope_head_dim 128, v_head_dim 128; BF16 (2 bytes)
    mla = mla_cache_bytes_per_token(61, 512, 64)
    mha = kv_cache_bytes_per_token(61, 128, 128 + 64, 128)
    gqa = kv_cache_bytes_per_token(61, 8, 128)
    assert mla == 61 * 576 * 2 == 70_272
    assert mha == 61 * 128 * 320 * 2 == 4_997_120
    assert gqa == 61 * 8 * 256 * 2 == 249_856
    assert mha // mla == 71 and gqa / mla > 3.5


def test_yarn_softmax_scale_values():
    assert yarn_softmax_scale(192, 40.0, 1.0) == pytest.approx(
        192**-0.5 * (0.1 * math.log(40) + 1) ** 2
    )
    assert yarn_softmax_scale(192, 40.0, 0) == pytest.approx(192**-0.5)
    assert yarn_softmax_scale(192, 1.0, 1.0) == pytest.approx(192**-0.5)
    from transformers.models.deepseek_v3.modeling_deepseek_v3 import yarn_apply_mscale

    params = {"rope_type": "yarn", "factor": 40.0, "mscale_all_dim": 0.707}
    assert yarn_softmax_scale(192, 40.0, 0.707) == pytest.approx(
        yarn_apply_mscale(params, 192**-0.5)
    )


@pytest.mark.parametrize(
    "call, error",
    [
        (lambda: mla_cache_bytes_per_token(0, 512, 64), ValueError),
        (lambda: kv_cache_bytes_per_token(61, 8, 128, bytes_per_value=1.5), TypeError),
        (lambda: yarn_softmax_scale(192, 40.0, -1.0), ValueError),
        (lambda: DecoupledRotaryMLA(16, 4, **(SIZES | {"qk_rope_head_dim": 3})), ValueError),
        (lambda: DecoupledRotaryMLA(16, 4, layout="pairs", **SIZES), ValueError),
        (lambda: DecoupledRotaryMLA(16, 4, frequencies=torch.ones(3), **SIZES), ValueError),
        (lambda: DecoupledRotaryMLA(16, 4, **SIZES).cache_entries(torch.ones(1, 3, 8)), ValueError),
    ],
)
def test_mla_rejects_bad_arguments(call, error):
    with pytest.raises(error):
        call()
