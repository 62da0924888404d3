"""Multimodal rotary position (M-RoPE), Wang et al. (2024), "Qwen2-VL", section 2.1.

A token gets three position ids, ``(time, height, width)``, and the rotary pairs of a head are
split into three sections, one per id: pair ``k`` turns by ``id_axis(k) * omega_k``. Text
tokens carry three equal ids, so for text M-RoPE is plain 1-D rotary. An image of ``h x w``
patches (after merging) shares one time id and counts rows and columns from where the text
stopped. Notebook 16 builds both halves here and checks them against ``transformers``
(``Qwen2VLModel.get_rope_index``, ``Qwen2VLRotaryEmbedding``, ``apply_rotary_pos_emb``).
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._checks import require_choice, require_int, require_tensor
from .rotary import ROTARY_LAYOUTS, _rotate_by, rotary_frequencies

__all__ = ["MROPE_SEGMENT_KINDS", "mrope_pair_axes", "mrope_position_ids", "apply_mrope"]

MROPE_SEGMENT_KINDS = ("text", "image", "video")


def _require_grid(kind: str, size: object, length: int) -> tuple[int, ...]:
    if not isinstance(size, Sequence) or len(size) != length:
        raise ValueError(
            f"a {kind} segment needs {length} sizes ({'(t, h, w)' if length == 3 else '(h, w)'}"
            f" patches after merging), got {size!r}"
        )
    return tuple(require_int(f"{kind} size", s, minimum=1) for s in size)


def mrope_position_ids(segments: Sequence[tuple[str, object]]) -> torch.Tensor:
    """The three position ids ``(time, height, width)`` of a text-and-vision sequence.

    ``segments``: ``("text", n)``, ``("image", (h, w))`` or ``("video", (t, h, w))`` in order,
    vision sizes in patches *after* merging (the tokens the language model sees). Rules of
    Qwen2-VL in ``transformers`` 5.23.0, with ``start`` the next free id (0 at first):

    - text: ids ``start, start + 1, ...`` on all three axes; ``start += n``.
    - image: time ``start`` for every patch, height ``start + row``, width ``start + column``,
      patches row by row; ``start += max(h, w)``, i.e. the largest id plus one.
    - video: as an image per frame, time ``start + frame``; ``start += max(h, w)``. With more
      frames than ``max(h, w)`` this is *not* the largest id plus one (the paper's rule, and
      ``transformers`` 4.x): the text after reuses ids of the video's last frames.

    Returns a long tensor ``(3, L)``. Derived in notebook 16.
    """
    if isinstance(segments, (str, bytes)) or not isinstance(segments, Sequence) or not segments:
        raise ValueError(f"segments must be a non-empty list of (kind, size), got {segments!r}")
    parts, start = [], 0
    for segment in segments:
        if not isinstance(segment, (tuple, list)) or len(segment) != 2:
            raise ValueError(f"each segment must be a pair (kind, size), got {segment!r}")
        kind, size = segment
        require_choice("segment kind", kind, MROPE_SEGMENT_KINDS)
        if kind == "text":
            n = require_int("text size", size, minimum=1)
            parts.append(torch.arange(start, start + n).expand(3, n))  # (3, n)
            start += n
            continue
        t, h, w = (
            (1, *_require_grid(kind, size, 2)) if kind == "image" else _require_grid(kind, size, 3)
        )
        frame, row, col = torch.meshgrid(
            torch.arange(t), torch.arange(h), torch.arange(w), indexing="ij"
        )  # (t, h, w) each
        parts.append(torch.stack((frame, row, col)).reshape(3, -1) + start)  # (3, t*h*w)
        start += max(h, w)
    return torch.cat(parts, dim=1)  # (3, L)


def mrope_pair_axes(mrope_section: Sequence[int], interleaved: bool = False) -> torch.Tensor:
    """Which id turns each rotary pair: ``0`` time, ``1`` height, ``2`` width.

    ``mrope_section``: three numbers of *pairs* (Qwen2-VL's ``[16, 24, 24]`` for a head of
    128 features, 64 pairs). Contiguous (Qwen2-VL): the first ``s_0`` pairs follow time, the
    next ``s_1`` height, the last ``s_2`` width. ``interleaved=True`` (Qwen3-VL): pairs cycle
    time, height, width, ``k = 3j + 1`` height for ``j < s_1``, ``k = 3j + 2`` width for
    ``j < s_2``, every other pair time. Returns a long tensor ``(sum(mrope_section),)``.
    Used in notebook 16.
    """
    if isinstance(mrope_section, (str, bytes)) or not isinstance(mrope_section, Sequence):
        raise TypeError(f"mrope_section must be a list of 3 integers, got {mrope_section!r}")
    if len(mrope_section) != 3:
        raise ValueError(
            f"mrope_section must have 3 entries (time, height, width), got {mrope_section!r}"
        )
    sizes = [require_int("mrope_section entry", s, minimum=0) for s in mrope_section]
    if not isinstance(interleaved, bool):
        raise TypeError(f"interleaved must be a bool, got {interleaved!r}")
    if not interleaved:
        return torch.repeat_interleave(torch.arange(3), torch.tensor(sizes))
    num_pairs = sum(sizes)
    axes = torch.zeros(num_pairs, dtype=torch.long)
    for axis in (1, 2):
        k = torch.arange(axis, 3 * sizes[axis], 3)
        if k.numel() and k[-1] >= num_pairs:
            raise ValueError(f"interleaved mrope_section {mrope_section!r} does not fit its pairs")
        axes[k] = axis
    return axes


def apply_mrope(
    x: torch.Tensor,
    position_ids: torch.Tensor,
    mrope_section: Sequence[int],
    base: float = 10000.0,
    layout: str = "half",
    interleaved: bool = False,
) -> torch.Tensor:
    """Rotate ``x (..., L, d)`` by M-RoPE: pair ``k`` turns by ``ids[axis(k)] * omega_k``.

    ``position_ids``: ``(3, ..., L)`` (from :func:`mrope_position_ids`), its middle dimensions
    broadcast against ``x.shape[:-2]``. ``mrope_section``: pairs per axis, summing to ``d/2``
    (see :func:`mrope_pair_axes`). ``layout``: ``"half"`` (Qwen's ``rotate_half``, the
    default) or ``"interleaved"``. Returns a tensor of the shape and dtype of ``x``.
    With three equal ids this is :func:`apply_rotary`. Derived in notebook 16.
    """
    require_tensor("x", x, min_ndim=2, floating=True)
    d = x.shape[-1]
    require_choice("layout", layout, ROTARY_LAYOUTS)
    axes = mrope_pair_axes(mrope_section, interleaved)
    if axes.numel() * 2 != d:
        raise ValueError(
            f"mrope_section must count rotary pairs summing to d/2 = {d // 2} (x has width "
            f"d={d}), got {list(mrope_section)} (sum {axes.numel()})"
        )
    require_tensor("position_ids", position_ids, min_ndim=2)
    if position_ids.shape[0] != 3 or position_ids.shape[-1] != x.shape[-2]:
        raise ValueError(
            f"position_ids must have shape (3, ..., L) with L={x.shape[-2]}, got "
            f"{tuple(position_ids.shape)}"
        )
    if position_ids.dtype == torch.bool or position_ids.is_complex():
        raise TypeError(f"position_ids must be integer or float, got dtype {position_ids.dtype}")
    work = torch.float32 if x.device.type == "mps" else torch.float64
    omega = rotary_frequencies(d, base, dtype=work).to(x.device)  # (d/2,)
    ids = position_ids.to(device=x.device, dtype=work)  # (3, ..., L)
    one_hot = torch.nn.functional.one_hot(axes, 3).T.to(device=x.device, dtype=work)  # (3, d/2)
    per_axis = ids[..., None] * omega  # (3, ..., L, d/2): every pair at every axis's id
    angles = (per_axis * one_hot.reshape(3, *[1] * (ids.ndim - 1), -1)).sum(0)  # (..., L, d/2)
    return _rotate_by(x, angles, layout)
