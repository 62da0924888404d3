"""Encodings at their edges: argument checks at the exact boundary, dtypes kept, the printed
score table laid out as documented, and reasons that name the right numbers."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from helpers import encodings as enc
from helpers.encodings import naive


def _relative_edges() -> list[tuple]:
    """``relative_scores(q, a)`` and ``relative_values(weights, a)``: a valid call, then the same
    call with one argument off by one dimension, dtype or length."""
    q, a, weights = torch.zeros(1, 2), torch.zeros(1, 1, 2), torch.zeros(1, 1)
    scores = [  # (bad arguments, error, words of its message)
        ((torch.zeros(2), a), ValueError, ("q", "at least 2")),
        ((q.long(), a), TypeError, ("q", "floating-point")),
        ((q, a.long()), TypeError, ("a must be a floating-point",)),
        ((torch.zeros(3, 2), a), ValueError, ("(3, L_k, d)",)),
        ((q, a.double()), TypeError, ("q", "a")),
    ]
    values = [
        ((weights.long(), a), TypeError, ("weights", "floating-point")),
        ((weights, torch.zeros(1, 2, 2)), ValueError, ("(1, 1, d)",)),
        ((weights, a.double()), TypeError, ("weights", "a")),
    ]
    return [
        (lambda: enc.relative_scores(q, a), lambda bad=bad: enc.relative_scores(*bad), error, words)
        for bad, error, words in scores
    ] + [
        (
            lambda: enc.relative_values(weights, a),
            lambda bad=bad: enc.relative_values(*bad),
            error,
            words,
        )
        for bad, error, words in values
    ]


@pytest.mark.parametrize(
    ("ok", "bad", "error", "words"),
    [
        (lambda: enc.alibi_bias(1, 2), lambda: enc.alibi_bias(0, 2), ValueError, ("seq_len",)),
        (
            lambda: enc.TokenAndPositionalEmbedding(1, 2, 4),
            lambda: enc.TokenAndPositionalEmbedding(0, 2, 4),
            ValueError,
            ("vocab_size", "positive"),
        ),
        (
            lambda: enc.TokenAndPositionalEmbedding(3, 1, 4, "learned"),
            lambda: enc.TokenAndPositionalEmbedding(3, 0, 4, "learned"),
            ValueError,
            ("d_model", "positive"),
        ),
        (
            lambda: enc.TokenAndPositionalEmbedding(3, 2, 1),
            lambda: enc.TokenAndPositionalEmbedding(3, 2, 0),
            ValueError,
            ("max_len", "positive"),
        ),
        (
            lambda: enc.LearnedPositionalEmbedding(1, 1),
            lambda: enc.LearnedPositionalEmbedding(0, 1),
            ValueError,
            ("max_len", "positive"),
        ),
        (
            lambda: enc.LearnedPositionalEmbedding(1, 1),
            lambda: enc.LearnedPositionalEmbedding(1, 0),
            ValueError,
            ("d_model", "positive"),
        ),
        (
            lambda: enc.SinusoidalPositionalEncoding(2, 1),
            lambda: enc.SinusoidalPositionalEncoding(2, 0),
            ValueError,
            ("max_len", "positive"),
        ),
        (
            lambda: enc.sinusoidal_encoding_2d(1, 1, 4),
            lambda: enc.sinusoidal_encoding_2d(0, 1, 4),
            ValueError,
            ("height", "positive"),
        ),
        (
            lambda: enc.sinusoidal_encoding_2d(1, 1, 4),
            lambda: enc.sinusoidal_encoding_2d(1, 0, 4),
            ValueError,
            ("width", "positive"),
        ),
        (
            lambda: enc.sinusoidal_encoding_2d(1, 1, 4),
            lambda: enc.sinusoidal_encoding_2d(1, 1, 0),
            ValueError,
            ("d_model", "positive"),
        ),
        (
            lambda: enc.relative_positions(1, 1, 1),
            lambda: enc.relative_positions(1, 0, 1),
            ValueError,
            ("len_k", "positive"),
        ),
        (
            lambda: enc.RelativePositionalEmbedding(1, 1),
            lambda: enc.RelativePositionalEmbedding(1, 0),
            ValueError,
            ("d_k", "positive"),
        ),
        (
            lambda: enc.RelativePositionalEmbedding(1, 2).scores(torch.zeros(1, 2), 1),
            lambda: enc.RelativePositionalEmbedding(1, 2).scores(torch.zeros(1, 2), 0),
            ValueError,
            ("len_k", "positive"),
        ),
        (
            lambda: enc.RelativePositionalEmbedding(1, 2).scores(torch.zeros(1, 2), 1),
            lambda: enc.RelativePositionalEmbedding(1, 2).scores(torch.zeros(2), 1),
            ValueError,
            ("q", "at least 2"),
        ),
        (
            lambda: enc.RelativePositionalEmbedding(1, 2).scores(torch.zeros(1, 2), 1),
            lambda: enc.RelativePositionalEmbedding(1, 2).scores(
                torch.zeros(1, 2, dtype=torch.long), 1
            ),
            TypeError,
            ("q", "floating-point"),
        ),
        *_relative_edges(),
        (
            lambda: enc.rotate_half(torch.zeros(2)),
            lambda: enc.rotate_half(torch.tensor(1.0)),
            ValueError,
            ("x", "at least 1"),
        ),
        (
            lambda: enc.rotate_interleaved(torch.zeros(2)),
            lambda: enc.rotate_interleaved(torch.tensor(1.0)),
            ValueError,
            ("x", "at least 1"),
        ),
        (
            lambda: naive.bounded_and_length_independent(
                naive.single_sine_encoding, (1, 4), verbose=False
            ),
            lambda: naive.bounded_and_length_independent(
                naive.single_sine_encoding, (0, 4), verbose=False
            ),
            ValueError,
            ("lengths", "positive"),
        ),
        (
            lambda: naive.consistent_distance(
                naive.single_sine_encoding, (2, 4), max_delta=1, verbose=False
            ),
            lambda: naive.consistent_distance(
                naive.single_sine_encoding, (1, 4), max_delta=1, verbose=False
            ),
            ValueError,
            ("lengths", ">= 2"),
        ),
        (
            lambda: naive.consistent_distance(
                naive.single_sine_encoding, (2, 4), max_delta=1, verbose=False
            ),
            lambda: naive.consistent_distance(
                naive.single_sine_encoding, (2, 4), max_delta=0, verbose=False
            ),
            ValueError,
            ("max_delta", "positive"),
        ),
        (
            lambda: naive.deterministic(naive.index_encoding, 1, verbose=False),
            lambda: naive.deterministic(naive.index_encoding, 0, verbose=False),
            ValueError,
            ("seq_len", "positive"),
        ),
        (
            lambda: naive.unique_per_position(naive.index_encoding, 2, verbose=False),
            lambda: naive.unique_per_position(naive.index_encoding, 1, verbose=False),
            ValueError,
            ("seq_len", ">= 2"),
        ),
        (
            lambda: naive.random_encoding(np.arange(2), dim=1),
            lambda: naive.random_encoding(np.arange(2), dim=0),
            ValueError,
            ("dim", "positive"),
        ),
        (
            lambda: enc.offset_matrix(3, 4),
            lambda: enc.offset_matrix("3", 4),
            TypeError,
            ("offset", "str"),
        ),
    ],
)
def test_encoding_checks_sit_at_their_boundary(ok, bad, error, words):
    ok()
    with pytest.raises(error) as caught:
        bad()
    assert all(word in str(caught.value) for word in words), str(caught.value)


def test_documented_defaults_of_the_encodings():
    import inspect

    def defaults(f):
        return {
            p.name: p.default
            for p in inspect.signature(f).parameters.values()
            if p.default is not inspect.Parameter.empty
        }

    assert defaults(enc.TokenAndPositionalEmbedding)["max_len"] == 512
    assert defaults(enc.SinusoidalPositionalEncoding)["max_len"] == 512
    assert defaults(naive.consistent_distance)["max_delta"] == 8
    assert defaults(naive.deterministic)["seq_len"] == 50
    assert defaults(naive.unique_per_position)["seq_len"] == 512
    assert defaults(naive.random_encoding)["dim"] == 16
    assert defaults(naive.single_sine_encoding)["omega"] == 1.0


def test_one_alibi_head_gets_the_slope_two_to_the_minus_8():
    assert enc.alibi_slopes(1).tolist() == [2.0**-8]


def test_rotary_frequencies_come_in_the_dtype_asked_for():
    assert enc.rotary_frequencies(8, dtype=torch.float32).dtype == torch.float32
    assert enc.rotary_frequencies(8).dtype == torch.float64


def test_learned_positions_keep_the_input_dtype():
    table = enc.LearnedPositionalEmbedding(4, 2)
    x = torch.ones(1, 3, 2, dtype=torch.bfloat16)
    out = table(x)
    assert out.dtype == torch.bfloat16
    torch.testing.assert_close(out, x + table.weight[:3].detach().to(torch.bfloat16))


def test_the_sinusoidal_table_is_not_saved_with_the_weights():
    assert "pe" not in enc.SinusoidalPositionalEncoding(4, 8).state_dict()


def test_the_2d_encoding_uses_its_base_for_rows_and_columns():
    pe = enc.sinusoidal_encoding_2d(2, 3, 8, base=100.0)
    np.testing.assert_array_equal(pe[0, :, 4:], enc.sinusoidal_encoding(3, 4, 100.0))
    np.testing.assert_array_equal(pe[:, 0, :4], enc.sinusoidal_encoding(2, 4, 100.0))


def test_normalized_index_of_two_positions_spans_zero_to_one():
    np.testing.assert_array_equal(naive.normalized_index_encoding(np.arange(2)).ravel(), [0.0, 1.0])


def test_score_table_layout():
    table = naive.format_score_table(
        {"x": {"u": True, "bd": False}, "ab": {"u": False, "bd": True}}
    )
    assert table == "scheme  u    bd   passed\nx       yes  no   1/2\nab      no   yes  1/2"
    long = naive.format_score_table({"a_long_name": {"unique": True}})
    assert long == "scheme       unique  passed\na_long_name  yes     1/1"


def test_score_schemes_prints_nothing(capsys):
    naive.score_schemes({"index": naive.index_encoding})
    assert capsys.readouterr().out == ""


def test_a_failed_uniqueness_check_returns_false_not_none():
    assert naive.unique_per_position(lambda t: np.zeros((len(t), 2)), 4, verbose=False) is False


def test_the_length_reason_names_the_longest_length(capsys):
    naive.bounded_and_length_independent(naive.single_sine_encoding, (8, 16, 32), verbose=True)
    assert "up to 32" in capsys.readouterr().out
