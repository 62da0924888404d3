"""Checkers of notebook 16, run on answers written the way a learner would write them: loops over
positions and pairs, no helper calls. Each classic mistake must fail with its own hint."""

from __future__ import annotations

import math

import pytest
import torch

from helpers.exercises import check_mrope_angles, check_mrope_position_ids, check_partial_rotary


# --- partial rotation -------------------------------------------------------------------------
def _rotate_pairs(x, positions, pairs, frequency):
    """Rotate the listed feature pairs (a, b) of every row by position * frequency(k)."""
    out = x.clone()
    for i, t in enumerate(positions):
        for k, (a, b) in enumerate(pairs):
            theta = t * frequency(k)
            out[i, a] = x[i, a] * math.cos(theta) - x[i, b] * math.sin(theta)
            out[i, b] = x[i, a] * math.sin(theta) + x[i, b] * math.cos(theta)
    return out


def partial_right(x, positions, rotary_dim, base):
    half = rotary_dim // 2
    pairs = [(k, k + half) for k in range(half)]
    return _rotate_pairs(x, positions, pairs, lambda k: base ** (-2 * k / rotary_dim))


def partial_last(x, positions, rotary_dim, base):
    d, half = x.shape[-1], rotary_dim // 2
    start = d - rotary_dim
    pairs = [(start + k, start + k + half) for k in range(half)]
    return _rotate_pairs(x, positions, pairs, lambda k: base ** (-2 * k / rotary_dim))


def partial_full_width_frequencies(x, positions, rotary_dim, base):
    d, half = x.shape[-1], rotary_dim // 2
    pairs = [(k, k + half) for k in range(half)]
    return _rotate_pairs(x, positions, pairs, lambda k: base ** (-2 * k / d))


def partial_across_head(x, positions, rotary_dim, base):
    d = x.shape[-1]
    pairs = [(k, k + d // 2) for k in range(rotary_dim // 2)]
    return _rotate_pairs(x, positions, pairs, lambda k: base ** (-2 * k / rotary_dim))


def partial_neighbours(x, positions, rotary_dim, base):
    pairs = [(2 * k, 2 * k + 1) for k in range(rotary_dim // 2)]
    return _rotate_pairs(x, positions, pairs, lambda k: base ** (-2 * k / rotary_dim))


def partial_all(x, positions, rotary_dim, base):
    d = x.shape[-1]
    pairs = [(k, k + d // 2) for k in range(d // 2)]
    return _rotate_pairs(x, positions, pairs, lambda k: base ** (-2 * k / d))


def partial_sign_flipped(x, positions, rotary_dim, base):
    return partial_right(x, [-t for t in positions], rotary_dim, base)


# --- M-RoPE angles ------------------------------------------------------------------------------
def angles_right(ids, section, d_k, base):
    axis_of_pair = []
    for axis, count in enumerate(section):
        axis_of_pair += [axis] * count
    out = torch.zeros(ids.shape[1], d_k // 2, dtype=torch.float64)
    for k in range(d_k // 2):
        out[:, k] = ids[axis_of_pair[k]].double() * base ** (-2 * k / d_k)
    return out


def angles_in_features(ids, section, d_k, base):
    axis_of_feature = []
    for axis, count in enumerate(section):
        axis_of_feature += [axis] * count  # read as features
    axis_of_feature += [axis_of_feature[-1]] * (d_k - len(axis_of_feature))
    out = torch.zeros(ids.shape[1], d_k // 2, dtype=torch.float64)
    for k in range(d_k // 2):
        out[:, k] = ids[axis_of_feature[2 * k]].double() * base ** (-2 * k / d_k)
    return out


def angles_cycled(ids, section, d_k, base):
    out = torch.zeros(ids.shape[1], d_k // 2, dtype=torch.float64)
    for k in range(d_k // 2):
        out[:, k] = ids[k % 3].double() * base ** (-2 * k / d_k)
    return out


def angles_time_only(ids, section, d_k, base):
    out = torch.zeros(ids.shape[1], d_k // 2, dtype=torch.float64)
    for k in range(d_k // 2):
        out[:, k] = ids[0].double() * base ** (-2 * k / d_k)
    return out


def angles_dimension_index(ids, section, d_k, base):
    out = angles_right(ids, section, d_k, base)
    for k in range(d_k // 2):
        out[:, k] *= base ** (2 * k / d_k) * base ** (-k / d_k)
    return out


def angles_width_first(ids, section, d_k, base):
    return angles_right(ids.flip(0), section[::-1], d_k, base)


# --- position ids ---------------------------------------------------------------------------------
def ids_learner(segments, *, after="max", swap=False, time_per_patch=False, from_zero=False):
    time, height, width = [], [], []
    start = 0
    for kind, size in segments:
        if kind == "text":
            for i in range(size):
                time.append(start + i)
                height.append(start + i)
                width.append(start + i)
            start += size
        else:
            h, w = size
            first = 0 if from_zero else start
            for r in range(h):
                for c in range(w):
                    time.append(first + (r * w + c if time_per_patch else 0))
                    height.append(first + (c if swap else r))
                    width.append(first + (r if swap else c))
            start += {"max": max(h, w), "count": h * w}[after]
    return torch.tensor([time, height, width])


def test_right_answers_pass(capsys):
    assert check_partial_rotary(partial_right)
    assert check_mrope_angles(angles_right)
    assert check_mrope_position_ids(ids_learner)
    assert capsys.readouterr().out.count("hidden cases pass") == 3


@pytest.mark.parametrize(
    ("checker", "wrong", "words"),
    [
        (check_partial_rotary, partial_last, "first rotary_dim"),
        (check_partial_rotary, partial_full_width_frequencies, "p-RoPE"),
        (check_partial_rotary, partial_across_head, "k + d/2 across the whole head"),
        (check_partial_rotary, partial_neighbours, "GPT-J's interleaved"),
        (check_partial_rotary, partial_all, "you rotated every feature"),
        (
            check_partial_rotary,
            partial_sign_flipped,
            "negated: you rotate the other way",
        ),
        (check_mrope_angles, angles_in_features, "counts rotary pairs"),
        (check_mrope_angles, angles_cycled, "Qwen3-VL"),
        (check_mrope_angles, angles_time_only, "its own id"),
        (check_mrope_angles, angles_dimension_index, "pair index k"),
        (
            check_mrope_angles,
            angles_width_first,
            "tokens 0-2 and 8-9 match, tokens 3-7 and 10-12 differ",
        ),
        (check_mrope_position_ids, lambda s: ids_learner(s, after="count"), "number of patches"),
        (check_mrope_position_ids, lambda s: ids_learner(s, swap=True), "swapped"),
        (check_mrope_position_ids, lambda s: ids_learner(s, time_per_patch=True), "share one"),
        (check_mrope_position_ids, lambda s: ids_learner(s, from_zero=True), "where the text"),
    ],
)
def test_each_classic_mistake_fails_with_its_hint(checker, wrong, words, capsys):
    assert checker(wrong) is False
    out = capsys.readouterr().out
    assert "FAILED" in out and words in out, out
