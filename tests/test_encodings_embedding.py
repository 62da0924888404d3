"""Unit tests of helpers.encodings.embedding.TokenAndPositionalEmbedding."""

import math

import pytest
import torch

from helpers.encodings import (
    POSITION_SCHEMES,
    LearnedPositionalEmbedding,
    SinusoidalPositionalEncoding,
    TokenAndPositionalEmbedding,
    sinusoidal_encoding,
)


@pytest.mark.parametrize(
    "make",
    [
        lambda: LearnedPositionalEmbedding(max_len=5, d_model=4),
        lambda: SinusoidalPositionalEncoding(d_model=4, max_len=5),
    ],
    ids=["learned", "sinusoidal"],
)
def test_position_tables_take_max_len_positions_and_reject_more_clearly(make):
    table = make()  # a ValueError naming both lengths, not an IndexError from the lookup
    assert table(torch.zeros(1, 5, 4)).shape == (1, 5, 4)
    with pytest.raises(ValueError, match=r"seq_len=6.*max_len=5"):
        table(torch.zeros(1, 6, 4))


def test_sinusoidal_output_is_scaled_lookup_plus_table():
    torch.manual_seed(0)
    layer = TokenAndPositionalEmbedding(vocab_size=11, d_model=8, max_len=16)
    tokens = torch.tensor([[1, 5, 5, 0], [10, 2, 3, 4]])
    expected = layer.token_embedding.weight[tokens] * math.sqrt(8) + torch.tensor(
        sinusoidal_encoding(4, 8), dtype=torch.float32
    )
    torch.testing.assert_close(layer(tokens), expected)
    assert isinstance(layer.position, SinusoidalPositionalEncoding)
    assert isinstance(layer.token_embedding, torch.nn.Embedding)


def test_learned_output_is_scaled_lookup_plus_trained_rows():
    torch.manual_seed(0)
    layer = TokenAndPositionalEmbedding(7, 6, max_len=5, positional="learned")
    tokens = torch.tensor([[3, 1, 2]])
    assert isinstance(layer.position, LearnedPositionalEmbedding)
    expected = layer.token_embedding.weight[tokens] * math.sqrt(6) + layer.position.weight[:3]
    torch.testing.assert_close(layer(tokens), expected)


@pytest.mark.parametrize("kind", ["none", "rotary", "alibi", "relative"])
def test_kinds_that_add_nothing_here(kind):
    torch.manual_seed(0)
    layer = TokenAndPositionalEmbedding(9, 8, max_len=4, positional=kind)
    assert layer.position is None
    tokens = torch.tensor([[1, 2, 3, 4, 5, 6]])  # longer than max_len: no table, no limit
    torch.testing.assert_close(layer(tokens), layer.token_embedding.weight[tokens] * math.sqrt(8))


def test_positional_kinds_constant():
    assert tuple(POSITION_SCHEMES) == (
        "sinusoidal",
        "learned",
        "none",
        "rotary",
        "alibi",
        "relative",
    )


def test_init_makes_scaled_tokens_unit_variance_comparable_with_the_encoding():
    torch.manual_seed(0)
    d_model = 256
    layer = TokenAndPositionalEmbedding(1000, d_model, positional="none")
    scaled = layer.token_embedding.weight * math.sqrt(d_model)
    assert abs(scaled.var().item() - 1.0) < 0.02
    # the sinusoidal table's entries have variance about 1/2: same order of magnitude
    pe = sinusoidal_encoding(512, d_model)
    assert abs((pe**2).mean() - 0.5) < 0.02
    learned = TokenAndPositionalEmbedding(10, d_model, positional="learned")
    assert abs(learned.position.weight.var().item() - 0.5) < 0.02


def test_padding_row_is_zero_and_gets_no_gradient():
    layer = TokenAndPositionalEmbedding(5, 4, positional="none", padding_idx=0)
    torch.testing.assert_close(layer.token_embedding.weight[0], torch.zeros(4))
    layer(torch.tensor([[0, 1, 0]])).sum().backward()
    torch.testing.assert_close(layer.token_embedding.weight.grad[0], torch.zeros(4))
    assert layer.token_embedding.weight.grad[1].abs().sum() > 0


def test_dropout_applies_to_the_sum_and_only_in_training():
    torch.manual_seed(0)
    layer = TokenAndPositionalEmbedding(5, 8, dropout=0.5)
    tokens = torch.tensor([[1, 2, 3, 4]])
    clean = layer.eval()(tokens)
    noisy = layer.train()(tokens)
    kept = noisy != 0
    assert 0 < kept.sum() < noisy.numel()
    torch.testing.assert_close(noisy[kept], (2 * clean)[kept])


def test_past_max_len_for_absolute_kinds():
    for kind in ("sinusoidal", "learned"):
        layer = TokenAndPositionalEmbedding(5, 4, max_len=3, positional=kind)
        with pytest.raises(ValueError, match=r"seq_len=4.*max_len=3"):
            layer(torch.zeros(1, 4, dtype=torch.long))


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"vocab_size": 0, "d_model": 4}, ValueError, "vocab_size"),
        ({"vocab_size": 5, "d_model": 0}, ValueError, "d_model"),
        ({"vocab_size": 5, "d_model": 5}, ValueError, "d_model"),  # sinusoidal needs even
        ({"vocab_size": 5, "d_model": 4, "max_len": 0}, ValueError, "max_len"),
        ({"vocab_size": 5, "d_model": 4, "positional": "rope"}, ValueError, "positional"),
        ({"vocab_size": 5, "d_model": 4, "positional": None}, TypeError, "positional"),
        ({"vocab_size": 5, "d_model": 4, "dropout": 1.5}, ValueError, "dropout"),
        ({"vocab_size": 5, "d_model": 4, "padding_idx": 5}, ValueError, "padding_idx"),
        ({"vocab_size": 5, "d_model": 4, "padding_idx": -1}, ValueError, "padding_idx"),
    ],
)
def test_bad_arguments(kwargs, error, name):
    with pytest.raises(error, match=name):
        TokenAndPositionalEmbedding(**kwargs)


def test_odd_d_model_is_fine_without_a_sinusoidal_table():
    layer = TokenAndPositionalEmbedding(5, 5, positional="learned")
    assert layer(torch.tensor([[1, 2]])).shape == (1, 2, 5)


@pytest.mark.parametrize(
    ("tokens", "error", "name"),
    [
        (torch.tensor([[1.0, 2.0]]), TypeError, "tokens"),
        (torch.tensor([[True, False]]), TypeError, "tokens"),
        (torch.tensor([1, 2]), ValueError, "tokens"),
        (torch.tensor([[1, 5]]), ValueError, "vocab_size"),
        (torch.tensor([[-1, 2]]), ValueError, "tokens"),
        ([[1, 2]], TypeError, "tokens"),
    ],
)
def test_bad_tokens(tokens, error, name):
    with pytest.raises(error, match=name):
        TokenAndPositionalEmbedding(5, 4)(tokens)


# --- position_probe (notebook 05): LDA, nearest average against the noise -------------------

import numpy as np  # noqa: E402

from helpers.encodings import position_probe  # noqa: E402


def test_position_probe_by_hand():
    # 1-D: position 0 averages 1, position 1 averages 11, the noise is +-1 around both. The rule
    # is then "nearest average": 5 -> 0 (4 vs 6 away), 7 -> 1 (6 vs 4), 0 -> 0.
    x_train = np.array([[0.0], [2.0], [10.0], [12.0], [0.0], [2.0], [10.0], [12.0]])
    t_train = np.array([0, 0, 1, 1, 0, 0, 1, 1])
    accuracy, error = position_probe(x_train, t_train, np.array([[5.0], [7.0], [0.0]]), [0, 0, 0])
    assert accuracy == pytest.approx(2 / 3) and error == pytest.approx(1 / 3)
    # positions need not start at 0: the labels are given back, not their indices
    accuracy, error = position_probe(x_train, t_train + 7, np.array([[7.0]]), np.array([9]))
    assert (accuracy, error) == (0.0, 1.0)  # predicted 8 for the label 9


def test_position_probe_measures_distance_against_the_noise():
    # 2-D: positions 0 and 1 average (0, 0) and (4, 4); the noise is large along x and tiny
    # along y. The point (3.9, 1) is nearer to (4, 4) in x but 3 noise units off in y, which
    # is far more than 0.1 units; the probe places it at 0, a Euclidean nearest mean at 1.
    rng = np.random.default_rng(0)
    noise = rng.normal(size=(400, 2)) * [3.0, 0.1]  # (400, 2)
    t_train = np.repeat([0, 1], 200)
    x_train = noise + np.array([[0.0, 0.0], [4.0, 4.0]])[t_train]
    point = np.array([[3.9, 1.0]])
    euclidean = np.argmin(np.linalg.norm(point - [[0.0, 0.0], [4.0, 4.0]], axis=1))
    assert euclidean == 1
    assert position_probe(x_train, t_train, point, np.array([0])) == (1.0, 0.0)


def test_position_probe_is_unchanged_by_an_invertible_linear_map():
    # LDA is affine-invariant: mixing the coordinates changes no prediction
    rng = np.random.default_rng(1)
    t_train, t_test = np.tile(np.arange(8), 60), np.tile(np.arange(8), 20)
    centres = rng.normal(size=(8, 5))
    x_train = centres[t_train] + rng.normal(size=(480, 5))
    x_test = centres[t_test] + rng.normal(size=(160, 5))
    mix = rng.normal(size=(5, 5)) + 3 * np.eye(5)
    plain = position_probe(x_train, t_train, x_test, t_test)
    mixed = position_probe(x_train @ mix, t_train, x_test @ mix, t_test)
    assert plain == pytest.approx(mixed) and 0.3 < plain[0] < 1.0


@pytest.mark.parametrize(
    ("args", "error", "name"),
    [
        ((np.zeros(5), np.zeros(5, dtype=int), np.zeros((1, 1)), [0]), TypeError, "x_train"),
        ((np.zeros((5, 1)), np.zeros(5), np.zeros((1, 1)), [0]), TypeError, "t_train"),
        ((np.zeros((5, 1)), np.zeros(4, dtype=int), np.zeros((1, 1)), [0]), TypeError, "t_train"),
        ((np.ones((9, 1)), np.arange(9) % 2, np.zeros((1, 2)), [0]), ValueError, "x_test"),
        ((np.ones((3, 1)), np.arange(3), np.zeros((1, 1)), [0]), ValueError, "x_train"),
        ((np.full((9, 1), np.nan), np.arange(9) % 2, np.ones((1, 1)), [0]), ValueError, "finite"),
    ],
)
def test_position_probe_bad_arguments(args, error, name):
    with pytest.raises(error, match=name):
        position_probe(*args)
