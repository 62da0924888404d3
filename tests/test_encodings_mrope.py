"""M-RoPE (``helpers.encodings.mrope``) against hand values and Qwen2-VL's code in ``transformers``.

References (``transformers`` 5.23.0, no download): ``Qwen2VLModel.get_rope_index`` on a tiny,
randomly initialised model built from a config; ``Qwen2VLRotaryEmbedding`` (its section split)
and the model file's ``apply_rotary_pos_emb``; Qwen3-VL's interleaved ``Qwen3VLTextRotaryEmbedding``.
"""

from __future__ import annotations

import pytest
import torch

from helpers.encodings import apply_mrope, apply_rotary, mrope_pair_axes, mrope_position_ids

transformers = pytest.importorskip("transformers")
from transformers import Qwen2VLConfig  # noqa: E402
from transformers.models.qwen2_vl import modeling_qwen2_vl as qwen2  # noqa: E402
from transformers.models.qwen3_vl import modeling_qwen3_vl as qwen3  # noqa: E402

MERGE = 2  # Qwen2-VL merges 2 x 2 patches into one language-model token


def _tiny_config(head_dim: int, section: list[int], base: float = 10000.0) -> Qwen2VLConfig:
    text = {
        "hidden_size": head_dim * 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "num_hidden_layers": 1,
        "intermediate_size": 8,
        "vocab_size": 16,
        "bos_token_id": None,
        "eos_token_id": None,
        "rope_parameters": {"rope_type": "default", "rope_theta": base, "mrope_section": section},
    }
    vision = {
        "depth": 1,
        "embed_dim": 8,
        "hidden_size": 8,
        "num_heads": 2,
        "spatial_merge_size": MERGE,
    }
    return Qwen2VLConfig(text_config=text, vision_config=vision)


@pytest.fixture(scope="module")
def tiny_model():
    torch.manual_seed(0)
    return qwen2.Qwen2VLModel(_tiny_config(16, [2, 3, 3]))


def _reference_ids(model, segments):
    """Token types and grids (patches before merging) for get_rope_index."""
    types, images, videos = [], [], []
    for kind, size in segments:
        if kind == "text":
            types += [0] * size
        elif kind == "image":
            h, w = size
            types += [1] * (h * w)
            images.append([1, h * MERGE, w * MERGE])
        else:
            t, h, w = size
            types += [2] * (t * h * w)
            videos.append([t, h * MERGE, w * MERGE])
    types = torch.tensor([types])
    ids, deltas = model.get_rope_index(
        torch.zeros_like(types),
        types,
        image_grid_thw=torch.tensor(images) if images else None,
        video_grid_thw=torch.tensor(videos) if videos else None,
    )
    return ids[:, 0], deltas


SEQUENCES = [
    [("text", 3), ("image", (2, 3)), ("text", 2), ("video", (2, 2, 2)), ("text", 4)],
    [("image", (4, 1)), ("text", 1)],
    [("text", 5)] + [("image", (1, 1))],
    [
        ("text", 2),
        ("image", (3, 3)),
        ("text", 1),
        ("image", (2, 5)),
        ("text", 2),
        ("video", (1, 3, 2)),
    ],
    [("video", (5, 2, 2)), ("text", 3)],  # more frames than max(h, w): 5.23.0's own rule
    [("text", 1), ("video", (3, 1, 4)), ("text", 2), ("image", (2, 2)), ("text", 1)],
]


@pytest.mark.parametrize("segments", SEQUENCES)
def test_position_ids_equal_get_rope_index(tiny_model, segments):
    expected, deltas = _reference_ids(tiny_model, segments)
    ours = mrope_position_ids(segments)
    torch.testing.assert_close(ours, expected, atol=0, rtol=0)
    assert int(deltas[0, 0]) == int(ours.max()) + 1 - ours.shape[1]


def test_position_ids_by_hand():
    ids = mrope_position_ids([("text", 2), ("image", (2, 3)), ("text", 2)])
    expected = [
        [0, 1, 2, 2, 2, 2, 2, 2, 5, 6],  # time: one id for the whole image
        [0, 1, 2, 2, 2, 3, 3, 3, 5, 6],  # height: row
        [0, 1, 2, 3, 4, 2, 3, 4, 5, 6],  # width: column; text resumes at max id 4 + 1
    ]
    assert ids.tolist() == expected
    video = mrope_position_ids([("text", 1), ("video", (3, 1, 2)), ("text", 1)])
    assert video[0].tolist() == [0, 1, 1, 2, 2, 3, 3, 3]  # time + frame; text after: 1 + max(1, 2)
    assert video.max().item() == 3  # the text token reuses id 3 of the last frame


@pytest.mark.parametrize(
    ("head_dim", "section", "base"),
    [(16, [2, 3, 3], 10000.0), (32, [4, 6, 6], 1e6), (24, [6, 3, 3], 100.0)],
)
def test_rotation_equals_qwen2_vl(head_dim, section, base):
    config = _tiny_config(head_dim, section, base)
    rotary = qwen2.Qwen2VLRotaryEmbedding(config.text_config)
    assert rotary.mrope_section == section
    ids = mrope_position_ids(
        [("text", 3), ("image", (2, 3)), ("text", 2), ("video", (2, 2, 2)), ("text", 2)]
    )
    torch.manual_seed(head_dim)
    q = torch.randn(1, 2, ids.shape[1], head_dim)  # (B, H, L, d)
    cos, sin = rotary(q, ids[:, None])  # (B, L, d)
    expected, _ = qwen2.apply_rotary_pos_emb(q, q, cos, sin)
    ours = apply_mrope(q, ids[:, None, None], section, base=base)  # ids (3, B, 1, L)
    torch.testing.assert_close(ours, expected, atol=1e-4, rtol=1e-4)


def test_interleaved_equals_qwen3_vl():
    from transformers import Qwen3VLConfig

    head_dim, section = 24, [4, 4, 4]
    text = {
        "hidden_size": head_dim * 2,
        "num_attention_heads": 2,
        "num_key_value_heads": 2,
        "head_dim": head_dim,
        "num_hidden_layers": 1,
        "intermediate_size": 8,
        "vocab_size": 16,
        "rope_parameters": {"rope_type": "default", "rope_theta": 5000.0, "mrope_section": section},
    }
    config = Qwen3VLConfig(text_config=text)
    rotary = qwen3.Qwen3VLTextRotaryEmbedding(config.text_config)
    ids = mrope_position_ids([("text", 2), ("image", (3, 2)), ("text", 2)])
    q = torch.randn(1, 1, ids.shape[1], head_dim)
    cos, sin = rotary(q, ids[:, None])
    expected, _ = qwen3.apply_rotary_pos_emb(q, q, cos, sin)
    ours = apply_mrope(q, ids[:, None, None], section, base=5000.0, interleaved=True)
    torch.testing.assert_close(ours, expected, atol=1e-4, rtol=1e-4)
    assert mrope_pair_axes(section, interleaved=True).tolist() == [0, 1, 2] * 4
    assert mrope_pair_axes([4, 3, 3], interleaved=True).tolist() == [0, 1, 2] * 3 + [0]


def test_pair_axes_by_hand_and_text_is_plain_rotary():
    assert mrope_pair_axes([1, 2, 3]).tolist() == [0, 1, 1, 2, 2, 2]
    x = torch.randn(7, 12, dtype=torch.float64)
    ids = mrope_position_ids([("text", 7)])
    torch.testing.assert_close(apply_mrope(x, ids, [2, 2, 2]), apply_rotary(x, layout="half"))
    torch.testing.assert_close(
        apply_mrope(x, ids, [2, 2, 2], layout="interleaved"), apply_rotary(x), atol=1e-12, rtol=0
    )


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (
            lambda: apply_mrope(torch.randn(4, 12), torch.zeros(3, 4), [4, 4, 4]),
            ValueError,
            ["mrope_section", "6", "12"],
        ),
        (
            lambda: apply_mrope(torch.randn(4, 12), torch.zeros(2, 4), [2, 2, 2]),
            ValueError,
            ["position_ids", "(2, 4)"],
        ),
        (
            lambda: apply_mrope(torch.randn(4, 12), torch.zeros(3, 4, dtype=torch.bool), [2, 2, 2]),
            TypeError,
            ["position_ids", "bool"],
        ),
        (
            lambda: apply_mrope(torch.randn(4, 12), torch.zeros(3, 4), [2, 2, 2], layout="neox"),
            ValueError,
            ["layout", "'neox'"],
        ),
        (lambda: mrope_pair_axes([2, 2]), ValueError, ["mrope_section", "[2, 2]"]),
        (lambda: mrope_pair_axes("222"), TypeError, ["mrope_section", "'222'"]),
        (
            lambda: mrope_pair_axes([1, 3, 3], interleaved=True),
            ValueError,
            ["mrope_section", "[1, 3, 3]"],
        ),
        (lambda: mrope_position_ids([("audio", 3)]), ValueError, ["segment kind", "'audio'"]),
        (lambda: mrope_position_ids([("image", (2,))]), ValueError, ["image", "(2,)"]),
        (lambda: mrope_position_ids([("text", 0)]), ValueError, ["text size", "0"]),
        (lambda: mrope_position_ids([]), ValueError, ["segments", "[]"]),
    ],
)
def test_bad_inputs_are_named(call, error, words):
    with pytest.raises(error) as info:
        call()
    for word in words:
        assert word in str(info.value)
