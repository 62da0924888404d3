"""Checkers for notebook 16 (rotary under the microscope): GPT-NeoX-style partial rotation, the
angles of M-RoPE's sections, and Qwen2-VL's position ids for text and images."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ..encodings import (
    apply_rotary,
    mrope_pair_axes,
    mrope_position_ids,
    partial_rotary_frequencies,
    rotary_frequencies,
)
from ._core import Mistake, cases_from, run_checker
from ._diagnose import Diagnosis, rotary_views

__all__ = ["check_partial_rotary", "check_mrope_angles", "check_mrope_position_ids"]


# --- partial rotation, GPT-NeoX style ----------------------------------------------------------

_PARTIAL_ARGS = [
    # (x, positions, rotary_dim, base); the first case tells every classic mistake apart
    (
        torch.randn(5, 12, generator=torch.Generator().manual_seed(160)).double(),
        [0, 1, 2, 5, 9],
        4,
        100.0,
    ),
    (
        torch.randn(4, 16, generator=torch.Generator().manual_seed(161)).double(),
        [3, 4, 10, 40],
        8,
        10000.0,
    ),
    (
        torch.randn(3, 10, generator=torch.Generator().manual_seed(162)).double(),
        [0, 7, 11],
        2,
        10000.0,
    ),
    (
        torch.randn(3, 8, generator=torch.Generator().manual_seed(163)).double(),
        [1, 2, 3],
        8,
        10000.0,
    ),
]


def _partial(x: torch.Tensor, positions: list[int], rotary_dim: int, base: float) -> torch.Tensor:
    return apply_rotary(x, positions, base, layout="half", rotary_dim=rotary_dim)


def _partial_last_features(x, positions, rotary_dim, base):
    d = x.shape[-1]
    rotated = apply_rotary(x[:, d - rotary_dim :], positions, base, layout="half")
    return torch.cat((x[:, : d - rotary_dim], rotated), dim=-1)


def _partial_full_width_frequencies(x, positions, rotary_dim, base):
    omega = rotary_frequencies(x.shape[-1], base)[: rotary_dim // 2]  # base**(-2k/d): p-RoPE's
    rotated = apply_rotary(x[:, :rotary_dim], positions, layout="half", frequencies=omega)
    return torch.cat((rotated, x[:, rotary_dim:]), dim=-1)


def _partial_pairs_across_the_head(x, positions, rotary_dim, base):
    omega = partial_rotary_frequencies(x.shape[-1], rotary_dim, base)  # pairs (k, k + d/2)
    return apply_rotary(x, positions, layout="half", frequencies=omega)


def _partial_interleaved(x, positions, rotary_dim, base):
    return apply_rotary(x, positions, base, layout="interleaved", rotary_dim=rotary_dim)


def _partial_everything(x, positions, rotary_dim, base):
    return apply_rotary(x, positions, base, layout="half")


def check_partial_rotary(fn: Callable[[torch.Tensor, list[int], int, float], object]) -> bool:
    """Check ``fn(x, positions, rotary_dim, base)`` -> GPT-NeoX's partial rotation of
    ``x (L, d)``: the first ``rotary_dim`` features rotated in the half layout, pairs
    ``(k, k + rotary_dim/2)``, ``omega_k = base**(-2k/rotary_dim)``; the rest unchanged.

    The exercise of notebook 16.
    """
    cases = cases_from(
        _partial,
        _PARTIAL_ARGS,
        lambda x, positions, rotary_dim, base: f"d={x.shape[-1]}, rotary_dim={rotary_dim}",
    )
    mistakes = [
        Mistake(
            _partial_last_features,
            "you rotated the last rotary_dim features; GPT-NeoX rotates the first rotary_dim "
            "features, x[..., :rotary_dim], and passes x[..., rotary_dim:] through.",
        ),
        Mistake(
            _partial_full_width_frequencies,
            "your frequencies are base**(-2k/d), the full head's fastest ones (that is p-RoPE); "
            "GPT-NeoX spreads base**(-2k/rotary_dim) over the rotated features.",
        ),
        Mistake(
            _partial_pairs_across_the_head,
            "you paired feature k with k + d/2 across the whole head; GPT-NeoX pairs inside the "
            "rotated features: k with k + rotary_dim/2.",
        ),
        Mistake(
            _partial_interleaved,
            "you paired neighbours (2k, 2k+1) (GPT-J's interleaved layout); GPT-NeoX pairs the "
            "two halves of the rotated features (rotate_half).",
        ),
        Mistake(
            _partial_everything,
            "you rotated every feature; only the first rotary_dim are rotated, the rest pass "
            "through unchanged.",
        ),
    ]
    return run_checker(
        "check_partial_rotary",
        fn,
        cases,
        mistakes,
        generic_hint="position 0 must leave x unchanged, and x[..., rotary_dim:] is never changed.",
        diagnosis=Diagnosis(
            axes=("position", "feature"),
            views=rotary_views(
                lambda args: args[0],
                "half",
                lambda args: args[2],
                params=lambda args: (args[1], args[2], args[3]),
            ),
        ),
    )


# --- M-RoPE: the angle of every pair --------------------------------------------------------------

_IDS = mrope_position_ids([("text", 2), ("image", (2, 3)), ("text", 1), ("video", (2, 1, 2))])
_ANGLE_ARGS = [
    (_IDS, [2, 3, 3], 16, 10000.0),
    (_IDS, [4, 6, 6], 32, 1000000.0),
    (_IDS[:, :5], [1, 1, 1], 6, 100.0),
]


def _angles(position_ids: torch.Tensor, mrope_section: list[int], d_k: int, base: float):
    axes = mrope_pair_axes(mrope_section)  # (d_k/2,)
    ids = position_ids.double()[axes]  # (d_k/2, L): the id each pair follows
    return (ids * rotary_frequencies(d_k, base)[:, None]).T  # (L, d_k/2)


def _angles_with(axes: torch.Tensor, position_ids, d_k, base, omega=None):
    omega = rotary_frequencies(d_k, base) if omega is None else omega
    return (position_ids.double()[axes] * omega[:, None]).T


def _angles_sections_in_features(position_ids, mrope_section, d_k, base):
    # section boundaries read as feature counts: pair k (features 2k, 2k+1) looked up by 2k
    bounds = torch.tensor(mrope_section).cumsum(0)
    axes = torch.searchsorted(bounds, 2 * torch.arange(d_k // 2), right=True).clamp(max=2)
    return _angles_with(axes, position_ids, d_k, base)


def _angles_cycled(position_ids, mrope_section, d_k, base):
    return _angles_with(torch.arange(d_k // 2) % 3, position_ids, d_k, base)  # t, h, w, t, ..


def _angles_time_only(position_ids, mrope_section, d_k, base):
    return _angles_with(torch.zeros(d_k // 2, dtype=torch.long), position_ids, d_k, base)


def _angles_dimension_index(position_ids, mrope_section, d_k, base):
    omega = base ** (-torch.arange(d_k // 2, dtype=torch.float64) / d_k)
    return _angles_with(mrope_pair_axes(mrope_section), position_ids, d_k, base, omega)


def check_mrope_angles(fn: Callable[[torch.Tensor, list[int], int, float], object]) -> bool:
    """Check ``fn(position_ids, mrope_section, d_k, base)`` -> the angle of every rotary pair
    of every token, ``(L, d_k/2)``: pair ``k`` follows the id of its section (Qwen2-VL's
    contiguous sections, counted in pairs) and turns by ``id * base**(-2k/d_k)``.

    The exercise of notebook 16.
    """
    cases = cases_from(
        _angles,
        _ANGLE_ARGS,
        lambda ids, section, d_k, base: f"mrope_section={section}, d_k={d_k}",
    )
    mistakes = [
        Mistake(
            _angles_sections_in_features,
            "you counted mrope_section in features; it counts rotary pairs (Qwen2-VL's "
            "[16, 24, 24] sums to 64 = head_dim / 2): pairs 0..s0-1 follow time, the next s1 "
            "height, the last s2 width.",
        ),
        Mistake(
            _angles_cycled,
            "you cycled time, height, width pair by pair (close to Qwen3-VL's interleaved layout); "
            "Qwen2-VL's sections are contiguous blocks of pairs.",
        ),
        Mistake(
            _angles_time_only,
            "every pair follows the time id here; each section follows its own id (time, "
            "height, width) from position_ids[0], [1], [2].",
        ),
        Mistake(
            _angles_dimension_index,
            "omega_k = base**(-2k/d_k) with the pair index k, not base**(-k/d_k).",
        ),
    ]
    return run_checker(
        "check_mrope_angles",
        fn,
        cases,
        mistakes,
        generic_hint="pair k's angle is position_ids[axis(k)] * base**(-2k/d_k), shape (L, d_k/2).",
        diagnosis=Diagnosis(axes=("token", "pair")),
    )


# --- Qwen2-VL's position ids for text and images ---------------------------------------------------

_SEGMENT_ARGS = [
    ([("text", 2), ("image", (2, 3)), ("text", 2)],),
    ([("image", (3, 2)), ("text", 1)],),
    ([("text", 1), ("image", (1, 4)), ("text", 3), ("image", (2, 2)), ("text", 1)],),
    ([("text", 4)],),
]


def _ids_with(segments, after_image, transpose=False, shared_time=True, offset=True):
    parts, start = [], 0
    for kind, size in segments:
        if kind == "text":
            parts.append(torch.arange(start, start + size).expand(3, size))
            start += size
            continue
        h, w = size
        row, col = torch.meshgrid(torch.arange(h), torch.arange(w), indexing="ij")
        row, col = (col, row) if transpose else (row, col)
        time = torch.zeros(h * w, dtype=torch.long) if shared_time else torch.arange(h * w)
        ids = torch.stack((time, row.flatten(), col.flatten()))  # (3, h*w)
        parts.append(ids + start if offset else ids)
        start += after_image(h, w)
    return torch.cat(parts, dim=1)


def _ids_right(segments):
    return mrope_position_ids(segments)


def _ids_after_patch_count(segments):
    return _ids_with(segments, lambda h, w: h * w)


def _ids_rows_and_columns_swapped(segments):
    return _ids_with(segments, max, transpose=True)


def _ids_time_per_patch(segments):
    return _ids_with(segments, max, shared_time=False)


def _ids_image_from_zero(segments):
    return _ids_with(segments, max, offset=False)


def check_mrope_position_ids(fn: Callable[[list], object]) -> bool:
    """Check ``fn(segments)`` -> Qwen2-VL's ``(3, L)`` position ids (time, height, width) for
    ``segments`` of ``("text", n)`` and ``("image", (h, w))``
    (:func:`~helpers.encodings.mrope_position_ids`).

    The exercise of notebook 16.
    """
    cases = cases_from(_ids_right, _SEGMENT_ARGS, lambda segments: f"segments={segments}")
    mistakes = [
        Mistake(
            _ids_after_patch_count,
            "the text after an image continued from the number of patches (start + h * w); it "
            "continues from the image's largest id plus one, start + max(h, w).",
        ),
        Mistake(
            _ids_rows_and_columns_swapped,
            "height and width are swapped: patches go row by row, the height id is start + row "
            "and the width id start + column.",
        ),
        Mistake(
            _ids_time_per_patch,
            "all patches of one image share one time id, start; you counted the patches.",
        ),
        Mistake(
            _ids_image_from_zero,
            "the image's ids start from 0; they count from where the text stopped (start).",
        ),
    ]
    return run_checker(
        "check_mrope_position_ids",
        fn,
        cases,
        mistakes,
        atol=0.0,
        rtol=0.0,
        generic_hint="text: three equal ids, one more per token; an image: time start, "
        "height start + row, width start + column.",
        diagnosis=Diagnosis(axes=("id (time, height, width)", "token")),
    )
