"""Unit tests of helpers.encodings.alibi: the paper's slopes by hand, the bias, bad inputs."""

import pytest
import torch

from helpers.encodings import alibi_bias, alibi_slopes


def test_slopes_8_heads():
    # Press et al. (2022), section 3: 1/2, 1/4, ..., 1/256 for 8 heads.
    expected = [1 / 2, 1 / 4, 1 / 8, 1 / 16, 1 / 32, 1 / 64, 1 / 128, 1 / 256]
    assert alibi_slopes(8).tolist() == pytest.approx(expected, rel=1e-7)


def test_slopes_16_heads():
    # Start and ratio 2**(-8/16) = 1/sqrt(2): 2**-0.5, 2**-1, ..., 2**-8.
    expected = [2 ** (-0.5 * (h + 1)) for h in range(16)]
    assert alibi_slopes(16).tolist() == pytest.approx(expected, rel=1e-7)
    assert alibi_slopes(16)[0].item() == pytest.approx(0.70710678, rel=1e-7)
    assert alibi_slopes(16)[-1].item() == pytest.approx(1 / 256, rel=1e-7)


def test_slopes_12_heads_original_rule():
    # Not a power of two: the 8 slopes of 8 heads, then every other slope of 16 heads,
    # 2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5 (the authors' get_slopes).
    expected = [2.0**-e for e in (1, 2, 3, 4, 5, 6, 7, 8, 0.5, 1.5, 2.5, 3.5)]
    assert alibi_slopes(12).tolist() == pytest.approx(expected, rel=1e-7)
    # ... which is NOT the power-of-two formula blindly applied to 12 heads.
    naive = [2 ** (-8 / 12 * (h + 1)) for h in range(12)]
    assert alibi_slopes(12).tolist() != pytest.approx(naive, rel=1e-3)


@pytest.mark.parametrize(
    ("num_heads", "expected"),
    [
        (1, [2.0**-8]),
        (2, [2.0**-4, 2.0**-8]),
        (3, [2.0**-4, 2.0**-8, 2.0**-2]),
        (6, [2.0**-2, 2.0**-4, 2.0**-6, 2.0**-8, 2.0**-1, 2.0**-3]),
    ],
)
def test_slopes_small_head_counts(num_heads, expected):
    assert alibi_slopes(num_heads).tolist() == pytest.approx(expected, rel=1e-7)


def test_slopes_shape_dtype_all_distinct_in_0_1():
    for n in range(1, 33):
        s = alibi_slopes(n)
        assert s.shape == (n,) and s.dtype == torch.float32
        assert torch.all((s > 0) & (s < 1))
        assert len(set(s.tolist())) == n


def test_bias_hand_values():
    bias = alibi_bias(3, 2)  # slopes 1/16, 1/256
    expected_head0 = -torch.tensor([[0.0, 1.0, 2.0], [1.0, 0.0, 1.0], [2.0, 1.0, 0.0]]) / 16
    assert bias.shape == (2, 3, 3) and bias.dtype == torch.float32
    torch.testing.assert_close(bias[0], expected_head0)
    torch.testing.assert_close(bias[1], expected_head0 * 16 / 256)


def test_bias_is_minus_slope_times_distance_for_causal_keys():
    n, seq_len = 8, 10
    bias, slopes = alibi_bias(seq_len, n), alibi_slopes(n)
    for i in range(seq_len):
        for j in range(i + 1):  # keys the causal mask keeps
            torch.testing.assert_close(bias[:, i, j], -slopes * (i - j))
    torch.testing.assert_close(bias, bias.transpose(-2, -1))  # symmetric by construction
    assert torch.all(bias.diagonal(dim1=-2, dim2=-1) == 0)


def test_bias_softmax_equals_authors_row_constant_form():
    # The authors' code adds slope * j (the same for every query row) under a causal mask;
    # softmax ignores a constant per row, so the attention weights are the same.
    from helpers.attention import causal_mask

    seq_len, n = 6, 4
    scores = torch.randn(n, seq_len, seq_len, generator=torch.Generator().manual_seed(0))
    mask = causal_mask(seq_len)
    ours = (scores + alibi_bias(seq_len, n)).masked_fill(~mask, float("-inf")).softmax(-1)
    theirs_bias = alibi_slopes(n)[:, None, None] * torch.arange(seq_len)[None, None, :]
    theirs = (scores + theirs_bias).masked_fill(~mask, float("-inf")).softmax(-1)
    torch.testing.assert_close(ours, theirs)


@pytest.mark.parametrize(
    ("fn", "args", "error", "name"),
    [
        (alibi_slopes, (0,), ValueError, "num_heads"),
        (alibi_slopes, (-4,), ValueError, "num_heads"),
        (alibi_slopes, (8.0,), TypeError, "num_heads"),
        (alibi_slopes, (True,), TypeError, "num_heads"),
        (alibi_bias, (0, 8), ValueError, "seq_len"),
        (alibi_bias, (4.5, 8), TypeError, "seq_len"),
        (alibi_bias, (4, 0), ValueError, "num_heads"),
        (alibi_bias, (4, "8"), TypeError, "num_heads"),
    ],
)
def test_bad_arguments(fn, args, error, name):
    with pytest.raises(error, match=name):
        fn(*args)
