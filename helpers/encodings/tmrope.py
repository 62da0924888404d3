"""Time-aligned multimodal rotary positions, TMRoPE (Qwen2.5-Omni; notebook 18).

Lesson 16's M-RoPE gives every token three ids ``(time, height, width)``. Qwen2.5-Omni (Xu et
al. 2025, "Qwen2.5-Omni Technical Report", section 2.2) ties the *time* id to seconds: 25
temporal ids per second (``position_id_per_seconds``), so one audio token (40 ms) advances time
by one id and a video frame grid taken at time ``s`` seconds gets time id ``floor(25 s)``. When
a video comes with its sound track, the two streams are cut into chunks of 2 seconds
(``seconds_per_chunk``: 50 ids) and interleaved, chunk by chunk: video of seconds 0-2, audio of
seconds 0-2, video of seconds 2-4, ... so tokens close in time are close in the sequence too.

:func:`tmrope_position_ids` builds the ``(3, L)`` ids of "text, video with its audio, text"
exactly as ``transformers``' ``get_rope_index`` does (tests). Qwen3-VL does not do this: its
video frames keep ids of their own grid, one frame after another, and time enters as text
*timestamp tokens* ("<0.5 seconds>") written between the frames.
"""

from __future__ import annotations

import torch

from .._checks import require_int, require_positive_float

__all__ = ["tmrope_temporal_ids", "tmrope_chunks", "tmrope_position_ids"]


def tmrope_temporal_ids(
    num_grids: int, seconds_per_grid: float, position_id_per_seconds: int = 25
) -> torch.Tensor:
    """Time ids of ``num_grids`` video grids taken ``seconds_per_grid`` apart:
    ``floor(g * seconds_per_grid * position_id_per_seconds)`` for ``g = 0 .. num_grids - 1``
    (computed in float32, as ``transformers`` does). Shape ``(num_grids,)``, int64.
    Used by :func:`tmrope_position_ids` (notebook 18).
    """
    num_grids = require_int("num_grids", num_grids, minimum=1)
    seconds_per_grid = require_positive_float("seconds_per_grid", seconds_per_grid)
    position_id_per_seconds = require_int(
        "position_id_per_seconds", position_id_per_seconds, minimum=1
    )
    seconds = torch.arange(num_grids) * torch.tensor(seconds_per_grid, dtype=torch.float32)
    return (seconds * position_id_per_seconds).long()


def tmrope_chunks(time_ids: torch.Tensor, ids_per_chunk: int) -> list[tuple[int, int]]:
    """Cut a non-decreasing sequence of time ids into chunks of ``ids_per_chunk`` ids: a list
    of ``(start, end)`` index ranges. Scanning left to right, a new chunk starts at the first
    id ``>= c * ids_per_chunk`` (``c = 1, 2, ...``, one boundary per id at most, as
    ``transformers``' ``get_chunked_index`` does: an id that jumps over several boundaries
    starts one chunk only). Used by :func:`tmrope_position_ids` (notebook 18).
    """
    if not isinstance(time_ids, torch.Tensor) or time_ids.ndim != 1:
        raise TypeError(f"time_ids must be a 1-D tensor, got {time_ids!r}")
    if time_ids.numel() > 1 and bool((time_ids[1:] < time_ids[:-1]).any()):
        raise ValueError("time_ids must be non-decreasing (ids grow with time)")
    ids_per_chunk = require_int("ids_per_chunk", ids_per_chunk, minimum=1)
    chunks, start, chunk = [], 0, 1
    for i, value in enumerate(time_ids.tolist()):
        if value >= chunk * ids_per_chunk:
            chunks.append((start, i))
            start, chunk = i, chunk + 1
    chunks.append((start, len(time_ids)))
    return chunks


def tmrope_position_ids(
    text_before: int,
    grid_thw: tuple[int, int, int],
    seconds_per_grid: float,
    num_audio_tokens: int,
    text_after: int = 0,
    *,
    spatial_merge_size: int = 2,
    position_id_per_seconds: int = 25,
    seconds_per_chunk: int = 2,
) -> torch.Tensor:
    """The ``(3, L)`` TMRoPE ids (time, height, width) of "text, a video with its audio, text".

    ``text_before`` / ``text_after`` text tokens; a video of ``grid_thw = (t, h, w)`` patches
    (merged ``spatial_merge_size`` x ``spatial_merge_size`` into one token) whose grids are
    ``seconds_per_grid`` apart; ``num_audio_tokens`` audio tokens (one per 40 ms). The sequence
    is: text, two start tokens (vision, audio), the video and audio tokens interleaved in
    chunks of ``seconds_per_chunk`` seconds, two end tokens, text. Text tokens count up by 1 on
    all three ids, each from one past the largest id so far. Equals ``transformers``'
    ``Qwen2.5-Omni get_rope_index(..., use_audio_in_video=True)``. Used in notebook 18.
    """
    text_before = require_int("text_before", text_before, minimum=0)
    text_after = require_int("text_after", text_after, minimum=0)
    if not (isinstance(grid_thw, tuple) and len(grid_thw) == 3):
        raise TypeError(f"grid_thw must be a (t, h, w) tuple of ints, got {grid_thw!r}")
    t, h, w = (require_int(f"grid_thw[{i}]", v, minimum=1) for i, v in enumerate(grid_thw))
    merge = require_int("spatial_merge_size", spatial_merge_size, minimum=1)
    if h % merge or w % merge:
        raise ValueError(
            f"grid_thw's h={h} and w={w} must be multiples of spatial_merge_size={merge}"
        )
    num_audio_tokens = require_int("num_audio_tokens", num_audio_tokens, minimum=1)
    seconds_per_chunk = require_int("seconds_per_chunk", seconds_per_chunk, minimum=1)
    parts: list[torch.Tensor] = []

    def text(n: int) -> None:
        start = int(parts[-1].max()) + 1 if parts else 0
        parts.append(torch.arange(n).expand(3, -1) + start)

    if text_before:
        text(text_before)
    text(1)  # vision start
    parts.append(parts[-1].clone())  # audio start: the same ids
    start = int(parts[-1].max()) + 1
    gh, gw = h // merge, w // merge
    time_ids = tmrope_temporal_ids(t, seconds_per_grid, position_id_per_seconds)
    video = (
        torch.stack(
            (
                time_ids.repeat_interleave(gh * gw),  # time: one id per grid, shared by its patches
                torch.arange(gh).repeat_interleave(gw).repeat(t),  # height
                torch.arange(gw).repeat(gh * t),  # width
            )
        )
        + start
    )  # (3, t * gh * gw)
    audio = torch.arange(num_audio_tokens).expand(3, -1) + start  # one id per 40 ms
    per_chunk = position_id_per_seconds * seconds_per_chunk
    video_chunks = tmrope_chunks(video[0] - start, per_chunk)
    audio_chunks = tmrope_chunks(audio[0] - start, per_chunk)
    for j in range(max(len(video_chunks), len(audio_chunks))):
        if j < len(video_chunks):
            parts.append(video[:, slice(*video_chunks[j])])
        if j < len(audio_chunks):
            parts.append(audio[:, slice(*audio_chunks[j])])
    text(1)  # audio end
    parts.append(parts[-1].clone())  # vision end
    if text_after:
        text(text_after)
    return torch.cat(parts, dim=1)
