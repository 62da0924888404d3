"""Notebook 18's TMRoPE ids against Qwen2.5-Omni's ``get_rope_index`` in ``transformers``."""

from __future__ import annotations

import functools
import types

import pytest
import torch

from helpers.encodings.tmrope import tmrope_chunks, tmrope_position_ids, tmrope_temporal_ids

transformers = pytest.importorskip("transformers")

VISION_START, AUDIO_START, VIDEO, AUDIO, AUDIO_END, VISION_END, TEXT = 90, 91, 92, 93, 94, 95, 7


def _get_rope_index(text_before, grid_thw, seconds_per_grid, audio_seqlen, text_after):
    """transformers' own get_rope_index, called on a stand-in holding only what it reads."""
    from transformers.models.qwen2_5_omni.modeling_qwen2_5_omni import (
        Qwen2_5OmniPreTrainedModelForConditionalGeneration as Omni,
    )

    config = types.SimpleNamespace(
        image_token_id=89, video_token_id=VIDEO, audio_token_id=AUDIO,
        vision_start_token_id=VISION_START, audio_start_token_id=AUDIO_START,
        position_id_per_seconds=25, seconds_per_chunk=2,
    )  # fmt: skip
    this = types.SimpleNamespace(config=config, spatial_merge_size=2)
    this.get_llm_pos_ids_for_vision = functools.partial(Omni.get_llm_pos_ids_for_vision, this)
    this.get_chunked_index = functools.partial(Omni.get_chunked_index, this)
    t, h, w = grid_thw
    audio_len = ((audio_seqlen - 1) // 2 + 1 - 2) // 2 + 1
    ids = (
        [TEXT] * text_before + [VISION_START, AUDIO_START] + [VIDEO] * (t * h * w // 4)
        + [AUDIO] * audio_len + [AUDIO_END, VISION_END] + [TEXT] * text_after
    )  # fmt: skip
    position_ids, _ = Omni.get_rope_index(
        this, torch.tensor([ids]), video_grid_thw=torch.tensor([grid_thw]),
        use_audio_in_video=True, audio_seqlens=torch.tensor([audio_seqlen]),
        second_per_grids=torch.tensor([seconds_per_grid]),
    )  # fmt: skip
    return position_ids[:, 0], audio_len


@pytest.mark.parametrize(
    "text_before, grid_thw, seconds_per_grid, audio_seqlen, text_after",
    [
        (3, (4, 4, 4), 1.0, 400, 2),  # 4 s of video, 4 s of audio (100 tokens)
        (0, (3, 2, 4), 2.0, 600, 1),  # grids 2 s apart: one grid per chunk
        (2, (5, 2, 2), 0.5, 200, 0),  # 2 grids a second, 2 s of audio
        (1, (2, 4, 2), 3.0, 120, 3),  # grids 3 s apart jump a chunk boundary
    ],
)
def test_tmrope_position_ids_equal_get_rope_index(
    text_before, grid_thw, seconds_per_grid, audio_seqlen, text_after
):
    expected, audio_len = _get_rope_index(
        text_before, grid_thw, seconds_per_grid, audio_seqlen, text_after
    )
    ours = tmrope_position_ids(text_before, grid_thw, seconds_per_grid, audio_len, text_after)
    assert torch.equal(ours, expected)


def test_a_short_clip_by_hand():
    # 1 text token, video of 2 grids 1 s apart (2x2 patches -> 1 token each), 2 s of audio
    ids = tmrope_position_ids(1, (2, 2, 2), 1.0, 50, 1)
    time = ids[0].tolist()
    # text 0, starts 1 1, video t=0 and t=25 (+2), audio 0..49 (+2), ends 52 52, text 53
    assert time == [0, 1, 1, 2, 27] + list(range(2, 52)) + [52, 52, 53]
    assert ids[1].tolist() == ids[2].tolist() == [0, 1, 1, 2, 2] + list(range(2, 52)) + [52, 52, 53]


def test_temporal_ids_and_chunks():
    assert tmrope_temporal_ids(4, 0.5).tolist() == [0, 12, 25, 37]
    assert tmrope_temporal_ids(3, 2.0, 25).tolist() == [0, 50, 100]
    assert tmrope_chunks(torch.tensor([0, 10, 50, 60, 99, 100]), 50) == [(0, 2), (2, 5), (5, 6)]
    assert tmrope_chunks(torch.tensor([0, 120]), 50) == [(0, 1), (1, 2)]  # one boundary per id
    with pytest.raises(ValueError):
        tmrope_chunks(torch.tensor([5, 3]), 50)
    with pytest.raises(ValueError):
        tmrope_position_ids(0, (2, 3, 2), 1.0, 10)
    with pytest.raises(TypeError):
        tmrope_position_ids(0, [2, 2, 2], 1.0, 10)
    with pytest.raises(ValueError):
        tmrope_temporal_ids(0, 1.0)
