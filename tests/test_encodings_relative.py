"""Unit tests of helpers.encodings.relative (Shaw et al. 2018): tables, both efficient forms
against a naive double loop, gradients, bad inputs."""

import pytest
import torch

from helpers.encodings import (
    RelativePositionalEmbedding,
    relative_positions,
    relative_scores,
    relative_values,
    t5_relative_buckets,
)
from helpers.encodings.relative import _log_bucket_starts


def test_relative_positions_hand_table():
    expected = torch.tensor(
        [
            [0, 1, 2, 2, 2],
            [-1, 0, 1, 2, 2],
            [-2, -1, 0, 1, 2],
            [-2, -2, -1, 0, 1],
        ]
    )
    table = relative_positions(4, 5, 2)
    assert table.dtype == torch.long
    assert torch.equal(table, expected)


def test_relative_positions_unclipped_and_zero_distance():
    assert torch.equal(
        relative_positions(3, 3, 10), torch.tensor([[0, 1, 2], [-1, 0, 1], [-2, -1, 0]])
    )
    assert torch.equal(relative_positions(3, 2, 0), torch.zeros(3, 2, dtype=torch.long))


def _embedding(max_distance, d_k, seed=0):
    torch.manual_seed(seed)
    emb = RelativePositionalEmbedding(max_distance, d_k).double()
    with torch.no_grad():
        emb.weight.normal_()  # larger than the init, so that mistakes show
    return emb


def test_table_rows_are_the_clipped_offset_vectors():
    emb = _embedding(2, 3)
    a = emb(4, 6)
    assert a.shape == (4, 6, 3)
    torch.testing.assert_close(a[0, 0], emb.weight[2])  # offset 0
    torch.testing.assert_close(a[1, 0], emb.weight[1])  # offset -1
    torch.testing.assert_close(a[0, 5], emb.weight[4])  # offset +5 clipped to +2
    torch.testing.assert_close(a[3, 0], emb.weight[0])  # offset -3 clipped to -2
    assert emb.weight.shape == (5, 3)


def test_initialisation_is_small_and_learned():
    torch.manual_seed(0)
    emb = RelativePositionalEmbedding(4, 16)
    assert emb.weight.requires_grad
    assert 0.01 < emb.weight.std().item() < 0.03


def _naive_scores(q, weight, max_distance, len_k):
    *lead, len_q, _ = q.shape
    out = torch.zeros(*lead, len_q, len_k, dtype=q.dtype)
    for i in range(len_q):
        for j in range(len_k):
            r = max(-max_distance, min(max_distance, j - i)) + max_distance
            out[..., i, j] = (q[..., i, :] * weight[r]).sum(-1)
    return out


def _naive_values(w, weight, max_distance):
    *lead, len_q, len_k = w.shape
    out = torch.zeros(*lead, len_q, weight.shape[1], dtype=w.dtype)
    for i in range(len_q):
        for j in range(len_k):
            r = max(-max_distance, min(max_distance, j - i)) + max_distance
            out[..., i, :] += w[..., i, j, None] * weight[r]
    return out


@pytest.mark.parametrize("max_distance", [0, 1, 3, 10])
def test_scores_einsum_and_gather_equal_the_double_loop(max_distance):
    emb = _embedding(max_distance, 4)
    q = torch.randn(2, 3, 5, 4, dtype=torch.float64)  # (B, H, L_q, d_k), L_k = 7
    naive = _naive_scores(q, emb.weight.detach(), max_distance, len_k=7)
    torch.testing.assert_close(relative_scores(q, emb(5, 7)), naive)
    torch.testing.assert_close(emb.scores(q, 7), naive)


@pytest.mark.parametrize("max_distance", [0, 2, 10])
def test_values_einsum_and_scatter_equal_the_double_loop(max_distance):
    emb = _embedding(max_distance, 4)
    w = torch.rand(2, 3, 5, 7, dtype=torch.float64).softmax(-1)  # (B, H, L_q, L_k)
    naive = _naive_values(w, emb.weight.detach(), max_distance)
    torch.testing.assert_close(relative_values(w, emb(5, 7)), naive)
    torch.testing.assert_close(emb.values(w), naive)


def test_gradients_reach_the_weight_through_both_terms():
    emb = _embedding(2, 4)
    q = torch.randn(1, 5, 4, dtype=torch.float64, requires_grad=True)
    w = torch.rand(1, 5, 5, dtype=torch.float64)
    (emb.scores(q, 5).sum() + emb.values(w).sum()).backward()
    assert emb.weight.grad is not None and emb.weight.grad.abs().sum() > 0
    assert q.grad is not None


@pytest.mark.parametrize(
    ("call", "error", "name"),
    [
        (lambda: relative_positions(0, 3, 2), ValueError, "len_q"),
        (lambda: relative_positions(3, 0, 2), ValueError, "len_k"),
        (lambda: relative_positions(3, 3, -1), ValueError, "max_distance"),
        (lambda: relative_positions(3, 3, 2.0), TypeError, "max_distance"),
        (lambda: RelativePositionalEmbedding(-1, 4), ValueError, "max_distance"),
        (lambda: RelativePositionalEmbedding(2, 0), ValueError, "d_k"),
        (lambda: RelativePositionalEmbedding(2, 4).scores(torch.zeros(3, 5), 3), ValueError, "q"),
        (
            lambda: RelativePositionalEmbedding(2, 4).scores(torch.zeros(3, 4), 0),
            ValueError,
            "len_k",
        ),
        (lambda: RelativePositionalEmbedding(2, 4).values(torch.zeros(3)), ValueError, "weights"),
        (lambda: relative_scores(torch.zeros(3, 4), torch.zeros(2, 5, 4)), ValueError, "a"),
        (lambda: relative_scores(torch.zeros(3, 4), torch.zeros(3, 5, 2)), ValueError, "a and q"),
        (
            lambda: relative_scores(torch.zeros(3, 4, dtype=torch.long), torch.zeros(3, 5, 4)),
            TypeError,
            "q",
        ),
        (lambda: relative_values(torch.zeros(3, 5), torch.zeros(3, 4, 4)), ValueError, "a"),
        (lambda: relative_values(torch.zeros(3, 5), torch.zeros(3, 5)), ValueError, "a"),
    ],
)
def test_bad_arguments(call, error, name):
    with pytest.raises(error, match=name):
        call()


# --- T5's buckets (Raffel et al. 2020, section 2.1) -------------------------------------------


def test_t5_buckets_hand_values_bidirectional():
    # num_buckets=32, max_distance=128: 16 buckets per side, distances 0..7 exact, then log
    # buckets starting at 8, 12, 16, 23, 32, 46, 64, 91 (8 * 16**(j/8), rounded up)
    offsets = torch.tensor([0, -1, -7, -8, -11, -12, -16, -127, -128, -5000, 1, 7, 8, 16, 5000])
    expected = torch.tensor([0, 1, 7, 8, 8, 9, 10, 15, 15, 15, 17, 23, 24, 26, 31])
    got = t5_relative_buckets(offsets)
    assert got.dtype == torch.long
    assert torch.equal(got, expected)


def test_t5_buckets_hand_values_causal():
    # 32 buckets all for looking back: distances 0..15 exact, keys ahead (offset > 0) in bucket 0
    offsets = torch.tensor([3, 1, 0, -1, -15, -16, -127, -128, -(10**6)])
    expected = torch.tensor([0, 0, 0, 1, 15, 16, 31, 31, 31])
    assert torch.equal(t5_relative_buckets(offsets, bidirectional=False), expected)


def test_t5_buckets_keep_shape_and_follow_relative_positions_sign():
    offsets = relative_positions(4, 6, 10)  # (4, 6): n - m, the sign T5 uses too
    buckets = t5_relative_buckets(offsets, num_buckets=8, max_distance=16)
    assert buckets.shape == (4, 6)
    assert int(buckets[0, 1]) >= 4 > int(buckets[1, 0])  # key after the query: upper half
    assert torch.equal(buckets.diagonal(), torch.zeros(4, dtype=torch.long))


def _transformers_bucket():
    t5 = pytest.importorskip("transformers.models.t5.modeling_t5")  # no download: a function
    return t5.T5Attention._relative_position_bucket


@pytest.mark.parametrize("bidirectional", [True, False])
@pytest.mark.parametrize(
    ("num_buckets", "max_distance"),
    [(32, 128), (32, 100), (16, 64), (8, 20), (6, 5), (64, 256), (128, 1000), (33, 129)],
)
def test_t5_buckets_equal_transformers(bidirectional, num_buckets, max_distance):
    offsets = torch.arange(-2000, 2001)
    reference = _transformers_bucket()(
        offsets, bidirectional=bidirectional, num_buckets=num_buckets, max_distance=max_distance
    )
    got = t5_relative_buckets(offsets, bidirectional, num_buckets, max_distance)
    assert torch.equal(got, reference)


def test_t5_buckets_equal_transformers_on_a_table_and_are_monotone():
    offsets = relative_positions(300, 700, 10**6)  # (300, 700), unclipped
    for bidirectional in (True, False):
        got = t5_relative_buckets(offsets, bidirectional)
        assert torch.equal(got, _transformers_bucket()(offsets, bidirectional=bidirectional))
    back = t5_relative_buckets(-torch.arange(0, 3000), bidirectional=False)
    assert bool((back[1:] >= back[:-1]).all()) and int(back.max()) == 31


def test_t5_bucket_boundaries_are_exact_integers():
    # 16, 32, 64 sit exactly on log-bucket boundaries for the defaults: 8 * 16**(2/8) = 16
    assert _log_bucket_starts(8, 8, 128) == [12, 16, 23, 32, 46, 64, 91]
    back = t5_relative_buckets(-torch.tensor([15, 16, 31, 32, 63, 64]), bidirectional=True)
    assert back.tolist() == [9, 10, 11, 12, 13, 14]
