"""Unit tests of helpers.encodings.learned: the trained absolute position table."""

import pytest
import torch

from helpers.encodings import LearnedPositionalEmbedding


def test_adds_the_first_rows_of_the_table():
    torch.manual_seed(0)
    module = LearnedPositionalEmbedding(max_len=10, d_model=4)
    assert module.weight.shape == (10, 4)
    x = torch.randn(2, 6, 4)
    torch.testing.assert_close(module(x), x + module.weight[:6])


def test_table_is_trained_and_saved():
    module = LearnedPositionalEmbedding(8, 4)
    assert [name for name, _ in module.named_parameters()] == ["weight"]
    assert "weight" in module.state_dict()
    module(torch.zeros(1, 3, 4)).sum().backward()
    # only the rows of positions that were used receive a gradient
    torch.testing.assert_close(module.weight.grad[:3], torch.ones(3, 4))
    torch.testing.assert_close(module.weight.grad[3:], torch.zeros(5, 4))


def test_initial_spread_matches_init_std():
    torch.manual_seed(0)
    small = LearnedPositionalEmbedding(512, 256)
    assert abs(small.weight.std().item() - 0.02) < 0.001
    large = LearnedPositionalEmbedding(512, 256, init_std=0.5)
    assert abs(large.weight.std().item() - 0.5) < 0.01
    assert abs(large.weight.mean().item()) < 0.01


@pytest.mark.parametrize(
    ("args", "error", "name"),
    [
        ((0, 4), ValueError, "max_len"),
        ((8, 0), ValueError, "d_model"),
        ((8.0, 4), TypeError, "max_len"),
        ((8, 4, 0.0), ValueError, "init_std"),
    ],
)
def test_bad_arguments(args, error, name):
    with pytest.raises(error, match=name):
        LearnedPositionalEmbedding(*args)


@pytest.mark.parametrize(
    ("x", "error", "name"),
    [
        (torch.zeros(3, 4), ValueError, "x"),
        (torch.zeros(1, 3, 5), ValueError, "d_model"),
        (torch.zeros(1, 3, 4, dtype=torch.long), TypeError, "x"),
    ],
)
def test_bad_inputs(x, error, name):
    with pytest.raises(error, match=name):
        LearnedPositionalEmbedding(8, 4)(x)
