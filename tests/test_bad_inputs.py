"""Bad input, clear errors: one matrix of wrong calls to every public function and class of helpers.

Each case calls one public callable with one bad argument (wrong type, shape or dtype, a size of
zero or below, an odd ``d_model`` where pairs are needed, ``num_heads`` not dividing ``d_model``, a
mask that does not broadcast, a sequence longer than a table, an unknown ``positional=`` name)
and asserts a ``ValueError`` or ``TypeError`` whose message names the argument and shows the bad
value (its repr, its shape, its dtype, or the type name when a tensor is not a tensor).

A second test walks ``__all__`` of every public module of ``helpers`` and fails if a public
callable (or a public method of a public class, ``forward`` included) has no case here, so a new
API cannot be forgotten. Where a helper does not validate yet, its case is a strict ``xfail``
that names what is missing and the exception it raises today: when the check is added, the case
XPASSes, fails, and its mark must be removed.
"""

from __future__ import annotations

import importlib
import inspect
import itertools
import pkgutil
from collections.abc import Callable
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from _public_api import public_modules

import helpers
import helpers.extrapolation as extrapolation
from helpers import attention, check_env, data, exercises, plots, training, transformer, widgets
from helpers import encodings as enc
from helpers.attention import MultiHeadAttention
from helpers.encodings import naive
from helpers.transformer import (
    DecoderLayer,
    DecoderOnlyTransformer,
    EncoderLayer,
    FeedForward,
    TorchReferenceTransformer,
    Transformer,
)

# What a call that raises nothing at all looks like to pytest.raises (for ``now=``).
NO_ERROR = pytest.fail.Exception

# Public callables that take arguments but need no bad-input case, with the reason.
EXEMPT: dict[object, str] = {
    check_env.Check: "plain record of one environment check, built by check_env itself",
    training.TrainingHistory: "plain record of losses and learning rates, built by train()",
    enc.PositionalAttention: "base class of the hooks below: takes no arguments",
    enc.PositionalAttention.rotate: "hook called by MultiHeadAttention after its own checks",
    enc.PositionalAttention.score_bias: "hook called by MultiHeadAttention after its own checks",
    enc.PositionalAttention.value_term: "hook called by MultiHeadAttention after its own checks",
    enc.RotaryPositionalAttention.rotate: "hook called by MultiHeadAttention after its checks",
    enc.QueryTemperature.rotate: "hook called by MultiHeadAttention after its checks",
    enc.RelativePositionalAttention.score_bias: "hook called by MultiHeadAttention, checked",
    enc.RelativePositionalAttention.value_term: "hook called by MultiHeadAttention, checked",
}


def _exempt_notebook_18() -> None:
    from helpers import model_configs

    EXEMPT[model_configs.ModelEntry] = "plain record of one bank entry, written in the module"
    EXEMPT[model_configs.LayerPosition] = "plain record of one layer, built by per_layer_table"


_exempt_notebook_18()


@dataclass(frozen=True)
class Bad:
    """One wrong call: ``call()`` must raise ``error`` naming ``names`` and showing ``shows``."""

    target: object  # the public function, class (constructor) or method being tested
    call: Callable[[], object]
    error: type[Exception]
    names: str  # the argument the message must name
    shows: str  # the bad value as the message must show it: repr, shape, dtype or type name
    id: str
    missing: str | None = None  # what validation is missing: the case is then a strict xfail
    now: type[BaseException] | None = None  # what a missing-validation case raises today


def t(*shape: int, dtype: torch.dtype = torch.float32) -> torch.Tensor:
    """A deterministic tensor of the given shape (values do not matter for bad-input cases)."""
    n = int(np.prod(shape)) if shape else 1
    return (torch.arange(n) % 3).reshape(shape).to(dtype)


def tokens(*shape: int) -> torch.Tensor:
    return t(*shape, dtype=torch.long) + 1  # ids 1..3, no padding


def b(*shape: int) -> torch.Tensor:
    return torch.ones(shape, dtype=torch.bool)


def mha(d_model: int = 8, num_heads: int = 2, **kwargs) -> MultiHeadAttention:
    return MultiHeadAttention(d_model, num_heads, **kwargs)


def dec(**kwargs) -> DecoderOnlyTransformer:
    return DecoderOnlyTransformer(7, d_model=8, num_heads=2, num_layers=1, d_ff=8, **kwargs)


def model(**kwargs) -> Transformer:
    args = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16, "max_len": 8}
    return Transformer(7, 7, **(args | kwargs))


def lm(**kwargs) -> DecoderOnlyTransformer:
    args = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16, "max_len": 8}
    return DecoderOnlyTransformer(7, **(args | kwargs))


def ref(**kwargs) -> TorchReferenceTransformer:
    args = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 16, "max_len": 8}
    return TorchReferenceTransformer(7, 7, **(args | kwargs))


def adam(lr: float = 1.0) -> torch.optim.Optimizer:
    return torch.optim.Adam(model().parameters(), lr=lr)


def batch() -> tuple[torch.Tensor, torch.Tensor]:
    return tokens(2, 4), tokens(2, 5)  # src (B, S), tgt (B, T)


def batches():
    return itertools.repeat(batch())


sdpa = attention.scaled_dot_product_attention
SHAPE_Q = (1, 3, 4)  # (batch, L_q, d_k) for the attention cases

# A table, aligned by hand for reading: one case per group of lines.
# fmt: off
CASES: list[Bad] = [
    # ---------------------------------------------------------------- helpers
    Bad(helpers.seed_everything, lambda: helpers.seed_everything(-1),
        ValueError, "seed", "-1", "seed_everything-negative"),
    Bad(helpers.seed_everything, lambda: helpers.seed_everything("0"),
        TypeError, "seed", "'0'", "seed_everything-str"),
    Bad(helpers.seed_everything, lambda: helpers.seed_everything(1.5),
        TypeError, "seed", "1.5", "seed_everything-float"),
    Bad(helpers.get_device, lambda: helpers.get_device("tpu"),
        ValueError, "prefer", "'tpu'", "get_device-unknown"),
    Bad(helpers.get_device, lambda: helpers.get_device(0),
        TypeError, "prefer", "0", "get_device-int"),
    # ---------------------------------------------------------------- attention
    Bad(sdpa, lambda: sdpa([[1.0]], t(*SHAPE_Q), t(*SHAPE_Q)),
        TypeError, "q", "list", "sdpa-q-list"),
    Bad(sdpa, lambda: sdpa(t(4), t(*SHAPE_Q), t(*SHAPE_Q)),
        ValueError, "q", "(4,)", "sdpa-q-1d"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q, dtype=torch.long), t(*SHAPE_Q), t(*SHAPE_Q)),
        TypeError, "q", "torch.int64", "sdpa-q-int"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q, dtype=torch.float64), t(*SHAPE_Q)),
        TypeError, "k", "torch.float64", "sdpa-k-other-dtype"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(1, 3, 5), t(1, 3, 5)),
        ValueError, "k", "(1, 3, 5)", "sdpa-k-other-d_k"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(1, 2, 4)),
        ValueError, "v", "(1, 2, 4)", "sdpa-v-other-length"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(2, 3, 4), t(2, 3, 4)),
        ValueError, "k", "(2, 3, 4)", "sdpa-k-other-batch"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(*SHAPE_Q), b(2, 3)),
        ValueError, "mask", "(2, 3)", "sdpa-mask-not-broadcast"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(*SHAPE_Q), b(2, 3, 3)),
        ValueError, "mask", "(2, 3, 3)", "sdpa-mask-enlarges-scores"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(*SHAPE_Q), t(3, 3)),
        TypeError, "mask", "torch.float32", "sdpa-mask-float"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(*SHAPE_Q), attn_bias=t(4, 4)),
        ValueError, "attn_bias", "(4, 4)", "sdpa-bias-not-broadcast"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(*SHAPE_Q), attn_bias=t(3, 3, dtype=torch.long)),
        TypeError, "attn_bias", "torch.int64", "sdpa-bias-int"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(*SHAPE_Q), dropout_p=1.0),
        ValueError, "dropout_p", "1.0", "sdpa-dropout-one"),
    Bad(sdpa, lambda: sdpa(t(*SHAPE_Q), t(*SHAPE_Q), t(*SHAPE_Q), dropout_p=-0.1),
        ValueError, "dropout_p", "-0.1", "sdpa-dropout-negative"),
    Bad(attention.causal_mask, lambda: attention.causal_mask(0),
        ValueError, "seq_len", "0", "causal_mask-zero"),
    Bad(attention.causal_mask, lambda: attention.causal_mask(-3),
        ValueError, "seq_len", "-3", "causal_mask-negative"),
    Bad(attention.causal_mask, lambda: attention.causal_mask(2.0),
        TypeError, "seq_len", "2.0", "causal_mask-float"),
    Bad(attention.padding_mask, lambda: attention.padding_mask(t(2, 3), 0),
        TypeError, "tokens", "torch.float32", "padding_mask-float-tokens"),
    Bad(attention.padding_mask, lambda: attention.padding_mask(tokens(3), 0),
        ValueError, "tokens", "(3,)", "padding_mask-1d-tokens"),
    Bad(attention.padding_mask, lambda: attention.padding_mask(tokens(2, 3), "0"),
        TypeError, "pad_id", "'0'", "padding_mask-str-pad_id"),
    Bad(attention.to_ignore_mask, lambda: attention.to_ignore_mask(t(2, 2, dtype=torch.long)),
        TypeError, "mask", "torch.int64", "to_ignore_mask-int"),
    Bad(attention.to_ignore_mask, lambda: attention.to_ignore_mask([[True]]),
        TypeError, "mask", "list", "to_ignore_mask-list"),
    Bad(MultiHeadAttention, lambda: mha(10, 3),
        ValueError, "num_heads", "3", "MultiHeadAttention-heads-not-dividing"),
    Bad(MultiHeadAttention, lambda: mha(0, 1),
        ValueError, "d_model", "0", "MultiHeadAttention-zero-d_model"),
    Bad(MultiHeadAttention, lambda: mha(8, -2),
        ValueError, "num_heads", "-2", "MultiHeadAttention-negative-heads"),
    Bad(MultiHeadAttention, lambda: mha(8.0, 2),
        TypeError, "d_model", "8.0", "MultiHeadAttention-float-d_model"),
    Bad(MultiHeadAttention, lambda: mha(dropout=1.5),
        ValueError, "dropout", "1.5", "MultiHeadAttention-dropout"),
    Bad(MultiHeadAttention, lambda: mha(bias="yes"),
        TypeError, "bias", "'yes'", "MultiHeadAttention-bias-str"),
    Bad(MultiHeadAttention, lambda: mha(6, 2, position=enc.RotaryPositionalAttention),
        ValueError, "d_k", "3", "MultiHeadAttention-rotary-odd-d_k"),
    Bad(MultiHeadAttention, lambda: mha(position="rotary"),
        TypeError, "position", "str", "MultiHeadAttention-position-str"),
    Bad(MultiHeadAttention, lambda: mha(position=lambda d_k: None),
        TypeError, "position(d_k)", "NoneType", "MultiHeadAttention-position-builds-nothing"),
    Bad(enc.RotaryPositionalAttention, lambda: enc.RotaryPositionalAttention(4, base=0.0),
        ValueError, "base", "0.0", "RotaryPositionalAttention-base"),
    Bad(enc.RelativePositionalAttention, lambda: enc.RelativePositionalAttention(4, -1),
        ValueError, "max_distance", "-1", "RelativePositionalAttention-negative-distance"),
    Bad(enc.RelativePositionalAttention, lambda: enc.RelativePositionalAttention(4, 2, 1),
        TypeError, "values", "1", "RelativePositionalAttention-values-int"),
    Bad(enc.RelativePositionalAttention, lambda: enc.RelativePositionalAttention(0),
        ValueError, "d_k", "0", "RelativePositionalAttention-zero-d_k"),
    Bad(MultiHeadAttention.forward, lambda: mha()(t(1, 3, 5), t(1, 3, 8), t(1, 3, 8)),
        ValueError, "query", "(1, 3, 5)", "MultiHeadAttention.forward-query-width"),
    Bad(MultiHeadAttention.forward, lambda: mha()(t(3, 8), t(3, 8), t(3, 8)),
        ValueError, "query", "(3, 8)", "MultiHeadAttention.forward-query-2d"),
    Bad(MultiHeadAttention.forward,
        lambda: mha()(t(1, 3, 8), t(1, 3, 8, dtype=torch.long), t(1, 3, 8)),
        TypeError, "key", "torch.int64", "MultiHeadAttention.forward-key-int"),
    Bad(MultiHeadAttention.forward, lambda: mha()(t(1, 3, 8), t(2, 4, 8), t(2, 4, 8)),
        ValueError, "key", "(2, 4, 8)", "MultiHeadAttention.forward-batch-mismatch"),
    Bad(MultiHeadAttention.forward, lambda: mha()(t(1, 3, 8), t(1, 4, 8), t(1, 3, 8)),
        ValueError, "value", "(1, 3, 8)", "MultiHeadAttention.forward-value-length"),
    Bad(MultiHeadAttention.forward, lambda: mha()(t(1, 3, 8), t(1, 3, 8), t(1, 3, 8), b(2, 2)),
        ValueError, "mask", "(2, 2)", "MultiHeadAttention.forward-mask-not-broadcast"),
    Bad(MultiHeadAttention.forward,
        lambda: mha()(t(1, 3, 8), t(1, 3, 8), t(1, 3, 8), b(2, 2), need_weights=False),
        ValueError, "mask", "(2, 2)", "MultiHeadAttention.forward-fused-mask-not-broadcast"),
    Bad(MultiHeadAttention.forward, lambda: mha()(t(2, 3, 8), t(2, 3, 8), t(2, 3, 8), b(2, 3, 3)),
        ValueError, "mask", "(2, 3, 3)", "MultiHeadAttention.forward-ambiguous-3d-mask"),
    Bad(MultiHeadAttention.forward, lambda: mha()(t(1, 3, 8), t(1, 3, 8), t(1, 3, 8), t(3, 3)),
        TypeError, "mask", "torch.float32", "MultiHeadAttention.forward-float-mask"),
    Bad(MultiHeadAttention.forward,
        lambda: mha()(t(1, 3, 8), t(1, 3, 8), t(1, 3, 8), need_weights=False, attn_bias=t(5, 5)),
        ValueError, "bias", "(5, 5)", "MultiHeadAttention.forward-fused-bias-not-broadcast"),
    Bad(MultiHeadAttention.forward,
        lambda: mha()(t(1, 3, 8), t(1, 3, 8), t(1, 3, 8), need_weights="no"),
        TypeError, "need_weights", "'no'", "MultiHeadAttention.forward-need_weights-str"),
    # ---------------------------------------------------------------- encodings: sinusoidal
    Bad(enc.frequencies, lambda: enc.frequencies(7),
        ValueError, "d_model", "7", "frequencies-odd-d_model"),
    Bad(enc.frequencies, lambda: enc.frequencies(0),
        ValueError, "d_model", "0", "frequencies-zero-d_model"),
    Bad(enc.frequencies, lambda: enc.frequencies("8"),
        TypeError, "d_model", "'8'", "frequencies-str-d_model"),
    Bad(enc.frequencies, lambda: enc.frequencies(8, base=0),
        ValueError, "base", "0", "frequencies-zero-base"),
    Bad(enc.frequencies, lambda: enc.frequencies(8, base=float("nan")),
        ValueError, "base", "nan", "frequencies-nan-base"),
    Bad(enc.frequencies, lambda: enc.frequencies(8, base="10000"),
        TypeError, "base", "'10000'", "frequencies-str-base"),
    Bad(enc.sinusoidal_encoding, lambda: enc.sinusoidal_encoding(-1, 4),
        ValueError, "num_positions", "-1", "sinusoidal_encoding-negative-positions"),
    Bad(enc.sinusoidal_encoding, lambda: enc.sinusoidal_encoding(2.5, 4),
        TypeError, "num_positions", "2.5", "sinusoidal_encoding-float-positions"),
    Bad(enc.sinusoidal_encoding, lambda: enc.sinusoidal_encoding(4, 5),
        ValueError, "d_model", "5", "sinusoidal_encoding-odd-d_model"),
    Bad(enc.SinusoidalPositionalEncoding, lambda: enc.SinusoidalPositionalEncoding(7),
        ValueError, "d_model", "7", "SinusoidalPositionalEncoding-odd-d_model"),
    Bad(enc.SinusoidalPositionalEncoding, lambda: enc.SinusoidalPositionalEncoding(8, max_len=0),
        ValueError, "max_len", "0", "SinusoidalPositionalEncoding-zero-max_len"),
    Bad(enc.SinusoidalPositionalEncoding,
        lambda: enc.SinusoidalPositionalEncoding(8, dropout=1.0),
        ValueError, "dropout", "1.0", "SinusoidalPositionalEncoding-dropout"),
    Bad(enc.SinusoidalPositionalEncoding.forward,
        lambda: enc.SinusoidalPositionalEncoding(8, max_len=4)(t(1, 5, 8)),
        ValueError, "max_len", "5", "SinusoidalPositionalEncoding.forward-longer-than-table"),
    Bad(enc.SinusoidalPositionalEncoding.forward,
        lambda: enc.SinusoidalPositionalEncoding(8)(t(1, 3, 6)),
        ValueError, "x", "(1, 3, 6)", "SinusoidalPositionalEncoding.forward-width"),
    Bad(enc.SinusoidalPositionalEncoding.forward,
        lambda: enc.SinusoidalPositionalEncoding(8)(t(1, 3, 8, dtype=torch.long)),
        TypeError, "x", "torch.int64", "SinusoidalPositionalEncoding.forward-int"),
    Bad(enc.SinusoidalPositionalEncoding.forward,
        lambda: enc.SinusoidalPositionalEncoding(8)(t(3, 8)),
        ValueError, "x", "(3, 8)", "SinusoidalPositionalEncoding.forward-2d"),
    Bad(enc.offset_matrix, lambda: enc.offset_matrix("1", 4),
        TypeError, "offset", "'1'", "offset_matrix-str-offset"),
    Bad(enc.offset_matrix, lambda: enc.offset_matrix(float("inf"), 4),
        ValueError, "offset", "inf", "offset_matrix-inf-offset"),
    Bad(enc.offset_matrix, lambda: enc.offset_matrix(1, 3),
        ValueError, "d_model", "3", "offset_matrix-odd-d_model"),
    Bad(enc.sinusoidal_encoding_2d, lambda: enc.sinusoidal_encoding_2d(2, 2, 6),
        ValueError, "d_model", "6", "sinusoidal_encoding_2d-d_model-not-4k"),
    Bad(enc.sinusoidal_encoding_2d, lambda: enc.sinusoidal_encoding_2d(0, 2, 8),
        ValueError, "height", "0", "sinusoidal_encoding_2d-zero-height"),
    Bad(enc.sinusoidal_encoding_2d, lambda: enc.sinusoidal_encoding_2d(2, -1, 8),
        ValueError, "width", "-1", "sinusoidal_encoding_2d-negative-width"),
    Bad(enc.sinusoidal_encoding_2d, lambda: enc.sinusoidal_encoding_2d(2, 2, 8, base=-1.0),
        ValueError, "base", "-1.0", "sinusoidal_encoding_2d-negative-base"),
    # ---------------------------------------------------------------- encodings: naive schemes
    Bad(naive.index_encoding, lambda: naive.index_encoding(np.array([0.0, 1.0])),
        TypeError, "positions", "float64", "index_encoding-float-positions"),
    Bad(naive.index_encoding, lambda: naive.index_encoding(np.zeros((2, 2), dtype=int)),
        TypeError, "positions", "(2, 2)", "index_encoding-2d-positions"),
    Bad(naive.normalized_index_encoding, lambda: naive.normalized_index_encoding([0, -1]),
        ValueError, "positions", "-1", "normalized_index_encoding-negative-position"),
    Bad(naive.bounded_decreasing_encoding, lambda: naive.bounded_decreasing_encoding([0.5]),
        TypeError, "positions", "float64", "bounded_decreasing_encoding-float-positions"),
    Bad(naive.binary_encoding, lambda: naive.binary_encoding(np.arange(3), 0),
        ValueError, "num_bits", "0", "binary_encoding-zero-bits"),
    Bad(naive.single_sine_encoding, lambda: naive.single_sine_encoding(np.arange(3), 0),
        ValueError, "omega", "0", "single_sine_encoding-zero-omega"),
    Bad(naive.random_encoding, lambda: naive.random_encoding(np.arange(3), dim=-4),
        ValueError, "dim", "-4", "random_encoding-negative-dim"),
    Bad(naive.unique_per_position, lambda: naive.unique_per_position(42),
        TypeError, "encode", "42", "unique_per_position-not-callable"),
    Bad(naive.unique_per_position, lambda: naive.unique_per_position(naive.index_encoding, 1),
        ValueError, "seq_len", "1", "unique_per_position-one-position"),
    Bad(naive.unique_per_position,
        lambda: naive.unique_per_position(lambda p: np.zeros((3, 3)), seq_len=5),
        ValueError, "encode", "(3, 3)", "unique_per_position-wrong-rows"),
    Bad(naive.consistent_distance, lambda: naive.consistent_distance(naive.index_encoding, ()),
        ValueError, "lengths", "()", "consistent_distance-no-lengths"),
    Bad(naive.consistent_distance,
        lambda: naive.consistent_distance(naive.index_encoding, (4, 8), max_delta=4),
        ValueError, "max_delta", "4", "consistent_distance-max_delta-too-large"),
    Bad(naive.consistent_distance, lambda: naive.consistent_distance(naive.index_encoding, 16),
        TypeError, "lengths", "16", "consistent_distance-int-lengths"),
    Bad(naive.bounded_and_length_independent,
        lambda: naive.bounded_and_length_independent(naive.index_encoding, (10,)),
        ValueError, "lengths", "(10,)", "bounded_and_length_independent-one-length"),
    Bad(naive.bounded_and_length_independent,
        lambda: naive.bounded_and_length_independent(naive.index_encoding, bound=0),
        ValueError, "bound", "0", "bounded_and_length_independent-zero-bound"),
    Bad(naive.deterministic, lambda: naive.deterministic(naive.index_encoding, seq_len=0),
        ValueError, "seq_len", "0", "deterministic-zero-seq_len"),
    Bad(naive.shift_is_linear, lambda: naive.shift_is_linear(naive.index_encoding, offsets=5),
        TypeError, "offsets", "5", "shift_is_linear-int-offsets"),
    Bad(naive.shift_is_linear, lambda: naive.shift_is_linear(naive.index_encoding, tol=-1.0),
        ValueError, "tol", "-1", "shift_is_linear-negative-tol"),
    Bad(naive.no_near_collisions, lambda: naive.no_near_collisions(naive.index_encoding, 2),
        ValueError, "seq_len", "2", "no_near_collisions-short"),
    Bad(naive.score_schemes, lambda: naive.score_schemes([naive.index_encoding]),
        TypeError, "schemes", "list", "score_schemes-list"),
    Bad(naive.format_score_table, lambda: naive.format_score_table(["index"]),
        TypeError, "scores", "list", "format_score_table-list"),
    # ---------------------------------------------------------------- encodings: learned, embedding
    Bad(enc.position_probe, lambda: enc.position_probe(np.zeros(5), [0] * 5, np.zeros((1, 1)), [0]),
        TypeError, "x_train", "(5,)", "position_probe-1d-x_train"),
    Bad(enc.LearnedPositionalEmbedding, lambda: enc.LearnedPositionalEmbedding(0, 4),
        ValueError, "max_len", "0", "LearnedPositionalEmbedding-zero-max_len"),
    Bad(enc.LearnedPositionalEmbedding, lambda: enc.LearnedPositionalEmbedding(4, -2),
        ValueError, "d_model", "-2", "LearnedPositionalEmbedding-negative-d_model"),
    Bad(enc.LearnedPositionalEmbedding, lambda: enc.LearnedPositionalEmbedding(4, 4, 0.0),
        ValueError, "init_std", "0.0", "LearnedPositionalEmbedding-zero-init_std"),
    Bad(enc.LearnedPositionalEmbedding.forward,
        lambda: enc.LearnedPositionalEmbedding(4, 8)(t(1, 6, 8)),
        ValueError, "max_len", "6", "LearnedPositionalEmbedding.forward-longer-than-table"),
    Bad(enc.LearnedPositionalEmbedding.forward,
        lambda: enc.LearnedPositionalEmbedding(4, 8)(t(1, 2, 4)),
        ValueError, "x", "(1, 2, 4)", "LearnedPositionalEmbedding.forward-width"),
    Bad(enc.LearnedPositionalEmbedding.forward,
        lambda: enc.LearnedPositionalEmbedding(4, 8)(t(1, 2, 8, dtype=torch.long)),
        TypeError, "x", "torch.int64", "LearnedPositionalEmbedding.forward-int"),
    Bad(enc.TokenAndPositionalEmbedding, lambda: enc.TokenAndPositionalEmbedding(5, 8, positional="rope"),
        ValueError, "positional", "'rope'", "TokenAndPositionalEmbedding-unknown-positional"),
    Bad(enc.TokenAndPositionalEmbedding, lambda: enc.TokenAndPositionalEmbedding(5, 8, positional=None),
        TypeError, "positional", "None", "TokenAndPositionalEmbedding-None-positional"),
    Bad(enc.TokenAndPositionalEmbedding, lambda: enc.TokenAndPositionalEmbedding(0, 8),
        ValueError, "vocab_size", "0", "TokenAndPositionalEmbedding-zero-vocab"),
    Bad(enc.TokenAndPositionalEmbedding, lambda: enc.TokenAndPositionalEmbedding(5, 7),
        ValueError, "d_model", "7", "TokenAndPositionalEmbedding-odd-d_model-sinusoidal"),
    Bad(enc.TokenAndPositionalEmbedding, lambda: enc.TokenAndPositionalEmbedding(5, 8, padding_idx=5),
        ValueError, "padding_idx", "5", "TokenAndPositionalEmbedding-padding_idx-past-vocab"),
    Bad(enc.TokenAndPositionalEmbedding, lambda: enc.TokenAndPositionalEmbedding(5, 8, dropout=-0.1),
        ValueError, "dropout", "-0.1", "TokenAndPositionalEmbedding-negative-dropout"),
    Bad(enc.TokenAndPositionalEmbedding.forward, lambda: enc.TokenAndPositionalEmbedding(5, 8)(t(1, 3)),
        TypeError, "tokens", "torch.float32", "TokenAndPositionalEmbedding.forward-float-tokens"),
    Bad(enc.TokenAndPositionalEmbedding.forward,
        lambda: enc.TokenAndPositionalEmbedding(5, 8)(torch.tensor([[1, 9]])),
        ValueError, "tokens", "9", "TokenAndPositionalEmbedding.forward-id-past-vocab"),
    Bad(enc.TokenAndPositionalEmbedding.forward,
        lambda: enc.TokenAndPositionalEmbedding(5, 8, max_len=4)(tokens(1, 6)),
        ValueError, "max_len", "6", "TokenAndPositionalEmbedding.forward-longer-than-table"),
    Bad(enc.TokenAndPositionalEmbedding.forward,
        lambda: enc.TokenAndPositionalEmbedding(5, 8)(tokens(1, 2, 3)),
        ValueError, "tokens", "(1, 2, 3)", "TokenAndPositionalEmbedding.forward-3d-tokens"),
    # ---------------------------------------------------------------- encodings: rotary
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 5)),
        ValueError, "x.shape[-1]", "5", "apply_rotary-odd-width"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4, dtype=torch.long)),
        TypeError, "x", "torch.int64", "apply_rotary-int"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(4)),
        ValueError, "x", "(4,)", "apply_rotary-1d"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4), layout="neox"),
        ValueError, "layout", "'neox'", "apply_rotary-unknown-layout"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4), base=0),
        ValueError, "base", "0", "apply_rotary-zero-base"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4), positions=[0, 1]),
        ValueError, "positions", "(2,)", "apply_rotary-positions-too-short"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4), positions=b(3)),
        TypeError, "positions", "torch.bool", "apply_rotary-bool-positions"),
    Bad(enc.rotate_half, lambda: enc.rotate_half(t(2, 3)),
        ValueError, "x.shape[-1]", "3", "rotate_half-odd-width"),
    Bad(enc.rotate_half, lambda: enc.rotate_half(np.zeros((2, 4))),
        TypeError, "x", "ndarray", "rotate_half-numpy"),
    Bad(enc.rotate_interleaved, lambda: enc.rotate_interleaved(t(2, 5)),
        ValueError, "x.shape[-1]", "5", "rotate_interleaved-odd-width"),
    Bad(enc.rotate_interleaved, lambda: enc.rotate_interleaved([1.0, 2.0]),
        TypeError, "x", "list", "rotate_interleaved-list"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4), rotary_dim=6),
        ValueError, "rotary_dim", "6", "apply_rotary-rotary_dim-too-wide"),
    Bad(enc.partial_rotary_frequencies, lambda: enc.partial_rotary_frequencies(8, 3),
        ValueError, "rotary_dim", "3", "partial_rotary_frequencies-odd"),
    Bad(enc.p_rope_frequencies, lambda: enc.p_rope_frequencies(8, -0.5),
        ValueError, "fraction", "-0.5", "p_rope_frequencies-negative"),
    Bad(enc.mrope_position_ids, lambda: enc.mrope_position_ids([("audio", 2)]),
        ValueError, "segment kind", "'audio'", "mrope_position_ids-unknown-kind"),
    Bad(enc.mrope_pair_axes, lambda: enc.mrope_pair_axes([16, 24]),
        ValueError, "mrope_section", "[16, 24]", "mrope_pair_axes-two-sections"),
    Bad(enc.apply_mrope, lambda: enc.apply_mrope(t(3, 8), torch.zeros(3, 3), [4, 4, 4]),
        ValueError, "mrope_section", "[4, 4, 4]", "apply_mrope-sections-in-dimensions"),
    Bad(enc.scaled_rotary_frequencies, lambda: enc.scaled_rotary_frequencies(2, "ntk", 2.0),
        ValueError, "d", "2", "scaled_rotary_frequencies-d-too-small"),
    Bad(enc.scaled_rotary_frequencies, lambda: enc.scaled_rotary_frequencies(8, "rope", 2.0),
        ValueError, "method", "'rope'", "scaled_rotary_frequencies-unknown-method"),
    Bad(enc.scaled_rotary_frequencies, lambda: enc.scaled_rotary_frequencies(8, "linear", 0.5),
        ValueError, "factor", "0.5", "scaled_rotary_frequencies-factor-below-1"),
    Bad(enc.scaled_rotary_frequencies, lambda: enc.scaled_rotary_frequencies(8, "ntk", 2, 1.0),
        ValueError, "base", "1.0", "scaled_rotary_frequencies-base-1"),
    Bad(enc.scaled_rotary_frequencies, lambda: enc.scaled_rotary_frequencies(8, "yarn", 2.0),
        ValueError, "original_max_len", "yarn", "scaled_rotary_frequencies-yarn-no-length"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "yarn", 2.0, original_max_len=0),
        ValueError, "original_max_len", "0", "scaled_rotary_frequencies-yarn-length-0"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "yarn", 2.0, original_max_len=64, beta_slow=40.0),
        ValueError, "beta_slow", "40.0", "scaled_rotary_frequencies-betas-swapped"),
    Bad(enc.scaled_rotary_frequencies, lambda: enc.scaled_rotary_frequencies(8, "llama3", 8.0),
        ValueError, "original_max_len", "llama3", "scaled_rotary_frequencies-llama3-no-length"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "llama3", 8.0, 10000.0, 64, low_freq_factor=4.0,
                                              high_freq_factor=1.0),
        ValueError, "high_freq_factor", "1.0", "scaled_rotary_frequencies-llama3-bounds-swapped"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "llama3", 8.0, 10000.0, 64, low_freq_factor=-1.0),
        ValueError, "low_freq_factor", "-1.0", "scaled_rotary_frequencies-llama3-negative-low"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "dynamic", 2.0, 10000.0, 64),
        ValueError, "seq_len", "dynamic", "scaled_rotary_frequencies-dynamic-no-length"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "dynamic", 2.0, 10000.0, 64, seq_len=0),
        ValueError, "seq_len", "0", "scaled_rotary_frequencies-dynamic-length-0"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "longrope", 2.0, 10000.0, 64,
                                              long_factor=[1.0] * 4),
        ValueError, "short_factor", "longrope", "scaled_rotary_frequencies-longrope-no-short"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "longrope", 2.0, 10000.0, 64,
                                              short_factor=[1.0] * 3, long_factor=[1.0] * 4),
        ValueError, "short_factor", "3", "scaled_rotary_frequencies-longrope-wrong-count"),
    Bad(enc.scaled_rotary_frequencies,
        lambda: enc.scaled_rotary_frequencies(8, "longrope", 2.0, 10000.0, 64,
                                              short_factor=[1.0] * 4, long_factor=7),
        TypeError, "long_factor", "7", "scaled_rotary_frequencies-longrope-number"),
    Bad(enc.rotary_frequencies, lambda: enc.rotary_frequencies(3),
        ValueError, "d", "3", "rotary_frequencies-odd-d"),
    Bad(enc.rotary_frequencies, lambda: enc.rotary_frequencies(4, base=-1.0),
        ValueError, "base", "-1.0", "rotary_frequencies-negative-base"),
    Bad(enc.rotary_frequencies, lambda: enc.rotary_frequencies(4, dtype="float32"),
        TypeError, "dtype", "'float32'", "rotary_frequencies-str-dtype"),
    Bad(enc.interleaved_to_half_permutation, lambda: enc.interleaved_to_half_permutation(5),
        ValueError, "d", "5", "interleaved_to_half_permutation-odd-d"),
    Bad(enc.interleaved_to_half_permutation, lambda: enc.interleaved_to_half_permutation(0),
        ValueError, "d", "0", "interleaved_to_half_permutation-zero-d"),
    # ---------------------------------------------------------------- encodings: alibi, relative
    Bad(enc.alibi_slopes, lambda: enc.alibi_slopes(0),
        ValueError, "num_heads", "0", "alibi_slopes-zero-heads"),
    Bad(enc.alibi_slopes, lambda: enc.alibi_slopes(2.0),
        TypeError, "num_heads", "2.0", "alibi_slopes-float-heads"),
    Bad(enc.alibi_bias, lambda: enc.alibi_bias(0, 2),
        ValueError, "seq_len", "0", "alibi_bias-zero-seq_len"),
    Bad(enc.alibi_bias, lambda: enc.alibi_bias(3, -1),
        ValueError, "num_heads", "-1", "alibi_bias-negative-heads"),
    Bad(enc.relative_positions, lambda: enc.relative_positions(0, 3, 2),
        ValueError, "len_q", "0", "relative_positions-zero-len_q"),
    Bad(enc.relative_positions, lambda: enc.relative_positions(3, "3", 2),
        TypeError, "len_k", "'3'", "relative_positions-str-len_k"),
    Bad(enc.relative_positions, lambda: enc.relative_positions(3, 3, -1),
        ValueError, "max_distance", "-1", "relative_positions-negative-distance"),
    Bad(enc.t5_relative_buckets, lambda: enc.t5_relative_buckets(t(3)),
        TypeError, "offsets", "torch.float32", "t5_relative_buckets-float-offsets"),
    Bad(enc.t5_relative_buckets, lambda: enc.t5_relative_buckets([0, 1]),
        TypeError, "offsets", "list", "t5_relative_buckets-list"),
    Bad(enc.t5_relative_buckets,
        lambda: enc.t5_relative_buckets(torch.arange(3), num_buckets=2),
        ValueError, "num_buckets", "2", "t5_relative_buckets-too-few-buckets"),
    Bad(enc.t5_relative_buckets,
        lambda: enc.t5_relative_buckets(torch.arange(3), max_distance=8),
        ValueError, "max_distance", "8", "t5_relative_buckets-max_distance-inside-exact"),
    Bad(enc.t5_relative_buckets,
        lambda: enc.t5_relative_buckets(torch.arange(3), bidirectional=1),
        TypeError, "bidirectional", "1", "t5_relative_buckets-int-bidirectional"),
    Bad(enc.relative_scores, lambda: enc.relative_scores(t(3, 4, dtype=torch.long), t(3, 3, 4)),
        TypeError, "q", "torch.int64", "relative_scores-int-q"),
    Bad(enc.relative_scores, lambda: enc.relative_scores(t(3, 4), t(2, 3, 4)),
        ValueError, "a", "(2, 3, 4)", "relative_scores-a-other-L_q"),
    Bad(enc.relative_scores, lambda: enc.relative_scores(t(3, 4), t(3, 3, 5)),
        ValueError, "a", "(3, 3, 5)", "relative_scores-a-other-d_k"),
    Bad(enc.relative_scores, lambda: enc.relative_scores(t(3, 4), t(3, 4)),
        ValueError, "a", "(3, 4)", "relative_scores-a-2d"),
    Bad(enc.relative_values, lambda: enc.relative_values(t(3, 3), t(3, 2, 4)),
        ValueError, "a", "(3, 2, 4)", "relative_values-a-other-L_k"),
    Bad(enc.relative_values, lambda: enc.relative_values(t(3), t(3, 3, 4)),
        ValueError, "weights", "(3,)", "relative_values-1d-weights"),
    Bad(enc.RelativePositionalEmbedding, lambda: enc.RelativePositionalEmbedding(-1, 4),
        ValueError, "max_distance", "-1", "RelativePositionalEmbedding-negative-distance"),
    Bad(enc.RelativePositionalEmbedding, lambda: enc.RelativePositionalEmbedding(2, 0),
        ValueError, "d_k", "0", "RelativePositionalEmbedding-zero-d_k"),
    Bad(enc.RelativePositionalEmbedding.forward, lambda: enc.RelativePositionalEmbedding(2, 4)(0, 3),
        ValueError, "len_q", "0", "RelativePositionalEmbedding.forward-zero-len_q"),
    Bad(enc.RelativePositionalEmbedding.scores,
        lambda: enc.RelativePositionalEmbedding(2, 4).scores(t(3, 5), 3),
        ValueError, "q", "(3, 5)", "RelativePositionalEmbedding.scores-q-width"),
    Bad(enc.RelativePositionalEmbedding.scores,
        lambda: enc.RelativePositionalEmbedding(2, 4).scores(t(3, 4), 0),
        ValueError, "len_k", "0", "RelativePositionalEmbedding.scores-zero-len_k"),
    Bad(enc.RelativePositionalEmbedding.values,
        lambda: enc.RelativePositionalEmbedding(2, 4).values(t(3, 3, dtype=torch.long)),
        TypeError, "weights", "torch.int64", "RelativePositionalEmbedding.values-int-weights"),
    # ---------------------------------------------------------------- encodings: graphs
    Bad(enc.laplacian_pe, lambda: enc.laplacian_pe(np.ones((3, 3)) - np.eye(3), 3),
        ValueError, "k", "k=3", "laplacian_pe-k-above-N-minus-1"),
    Bad(enc.laplacian_pe, lambda: enc.laplacian_pe([[0, 1], [1, 0]], 1),
        TypeError, "adjacency", "list", "laplacian_pe-list-adjacency"),
    Bad(enc.laplacian_pe, lambda: enc.laplacian_pe(np.triu(np.ones((3, 3)), 1), 1),
        ValueError, "adjacency", "adjacency[0, 1] = 1", "laplacian_pe-not-symmetric"),
    Bad(enc.random_walk_pe, lambda: enc.random_walk_pe(np.zeros((2, 3)), 1),
        ValueError, "adjacency", "(2, 3)", "random_walk_pe-not-square"),
    Bad(enc.random_walk_pe, lambda: enc.random_walk_pe(np.zeros((3, 3)), 0),
        ValueError, "k", "0", "random_walk_pe-zero-k"),
    Bad(enc.random_walk_pe, lambda: enc.random_walk_pe(np.full((2, 2), 0.5), 1),
        ValueError, "adjacency", "0.5", "random_walk_pe-weighted"),
    Bad(enc.shortest_path_distances, lambda: enc.shortest_path_distances(torch.eye(3)),
        ValueError, "adjacency", "self-loops", "shortest_path_distances-self-loops"),
    Bad(enc.shortest_path_distances, lambda: enc.shortest_path_distances(t(2, 2, 2)),
        ValueError, "adjacency", "(2, 2, 2)", "shortest_path_distances-3d"),
    # ---------------------------------------------------------------- data
    Bad(data.vocab_size, lambda: data.vocab_size(0),
        ValueError, "num_symbols", "0", "vocab_size-zero"),
    Bad(data.apply_task, lambda: data.apply_task("rotate", tokens(2, 3)),
        ValueError, "task", "'rotate'", "apply_task-unknown-task"),
    Bad(data.apply_task, lambda: data.apply_task("copy", t(2, 3)),
        TypeError, "src", "torch.float32", "apply_task-float-src"),
    Bad(data.apply_task, lambda: data.apply_task("copy", tokens(3)),
        ValueError, "src", "(3,)", "apply_task-1d-src"),
    Bad(data.make_batch, lambda: data.make_batch("copy", 0),
        ValueError, "batch_size", "0", "make_batch-zero-batch"),
    Bad(data.make_batch, lambda: data.make_batch("copy", 2, num_symbols=-1),
        ValueError, "num_symbols", "-1", "make_batch-negative-symbols"),
    Bad(data.make_batch, lambda: data.make_batch("copy", 2, min_len=5, max_len=3),
        ValueError, "max_len", "3", "make_batch-max_len-below-min_len"),
    Bad(data.make_batch, lambda: data.make_batch("sorted", 2),
        ValueError, "task", "'sorted'", "make_batch-unknown-task"),
    Bad(data.make_batch, lambda: data.make_batch("copy", 2, generator=5),
        TypeError, "generator", "5", "make_batch-int-generator"),
    Bad(data.make_dataset, lambda: data.make_dataset("copy", 4, seed=-1),
        ValueError, "seed", "-1", "make_dataset-negative-seed"),
    Bad(data.make_dataset, lambda: data.make_dataset("copy", 0),
        ValueError, "num_sequences", "0", "make_dataset-zero-sequences"),
    Bad(data.batch_stream, lambda: data.batch_stream("copy", 0),
        ValueError, "batch_size", "0", "batch_stream-zero-batch"),
    Bad(data.batch_stream, lambda: data.batch_stream("copy", 2, min_len=0),
        ValueError, "min_len", "0", "batch_stream-zero-min_len"),
    Bad(data.iterate_minibatches, lambda: data.iterate_minibatches(tokens(3, 2), tokens(2, 2), 1),
        ValueError, "tgt", "2", "iterate_minibatches-row-mismatch"),
    Bad(data.iterate_minibatches, lambda: data.iterate_minibatches(tokens(2, 2), tokens(2, 2), 0),
        ValueError, "batch_size", "0", "iterate_minibatches-zero-batch"),
    Bad(data.iterate_minibatches, lambda: data.iterate_minibatches(t(2, 2), tokens(2, 2), 1),
        TypeError, "src", "torch.float32", "iterate_minibatches-float-src"),
    Bad(data.iterate_minibatches,
        lambda: list(data.iterate_minibatches(tokens(2, 2), tokens(2, 2), 1, shuffle="yes")),
        TypeError, "shuffle", "'yes'", "iterate_minibatches-str-shuffle"),
    Bad(data.to_symbols, lambda: data.to_symbols(tokens(2, 2)),
        ValueError, "ids", "(2, 2)", "to_symbols-2d-ids"),
    Bad(data.to_symbols, lambda: data.to_symbols(t(3)),
        TypeError, "ids", "torch.float32", "to_symbols-float-ids"),
    Bad(data.to_symbols, lambda: data.to_symbols("1 5 2"),
        TypeError, "ids", "'1 5 2'", "to_symbols-str-ids"),
    # ---------------------------------------------------------------- transformer: blocks
    Bad(FeedForward, lambda: FeedForward(8, 0),
        ValueError, "d_ff", "0", "FeedForward-zero-d_ff"),
    Bad(FeedForward, lambda: FeedForward(8, 16, dropout=2.0),
        ValueError, "dropout", "2.0", "FeedForward-dropout"),
    Bad(FeedForward.forward, lambda: FeedForward(8, 16)(t(1, 3, 5)),
        ValueError, "x", "(1, 3, 5)", "FeedForward.forward-width"),
    Bad(FeedForward.forward, lambda: FeedForward(8, 16)(t(1, 3, 8, dtype=torch.long)),
        TypeError, "x", "torch.int64", "FeedForward.forward-int"),
    Bad(EncoderLayer, lambda: EncoderLayer(10, 3, 16),
        ValueError, "num_heads", "3", "EncoderLayer-heads-not-dividing"),
    Bad(EncoderLayer, lambda: EncoderLayer(8, 2, 16, norm_first="yes"),
        TypeError, "norm_first", "'yes'", "EncoderLayer-str-norm_first"),
    Bad(EncoderLayer.forward, lambda: EncoderLayer(8, 2, 16)(t(1, 3, 8), b(2, 2)),
        ValueError, "mask", "(2, 2)", "EncoderLayer.forward-mask-not-broadcast"),
    Bad(EncoderLayer.forward, lambda: EncoderLayer(8, 2, 16)(t(1, 3, 5)),
        ValueError, "x", "(1, 3, 5)", "EncoderLayer.forward-width"),
    Bad(DecoderLayer, lambda: DecoderLayer(8, 3, 16),
        ValueError, "num_heads", "3", "DecoderLayer-heads-not-dividing"),
    Bad(DecoderLayer, lambda: DecoderLayer(8, 2, -16),
        ValueError, "d_ff", "-16", "DecoderLayer-negative-d_ff"),
    Bad(DecoderLayer.forward, lambda: DecoderLayer(8, 2, 16)(t(1, 3, 8), t(1, 4, 5)),
        ValueError, "memory", "(1, 4, 5)", "DecoderLayer.forward-memory-width"),
    # ---------------------------------------------------------------- transformer: models
    Bad(transformer.TransformerConfig, lambda: transformer.TransformerConfig(tie_embeddings=1),
        TypeError, "tie_embeddings", "1", "TransformerConfig-tie_embeddings-int"),
    Bad(transformer.TransformerConfig,
        lambda: transformer.TransformerConfig(positional="rotary", num_layers=2, nope_layers=(2,)),
        ValueError, "nope_layers", "2", "TransformerConfig-nope_layers-past-the-last"),
    Bad(transformer.TransformerConfig,
        lambda: transformer.TransformerConfig(positional="rotary", nope_layers=(-1,)),
        ValueError, "nope_layers", "-1", "TransformerConfig-nope_layers-negative"),
    Bad(transformer.TransformerConfig, lambda: transformer.TransformerConfig(nope_layers=(0,)),
        ValueError, "nope_layers", "'sinusoidal'", "TransformerConfig-nope_layers-embedding-scheme"),
    Bad(transformer.TransformerConfig,
        lambda: transformer.TransformerConfig(positional="rotary", nope_layers="0"),
        TypeError, "nope_layers", "'0'", "TransformerConfig-nope_layers-string"),
    Bad(transformer.TransformerConfig.layer_args,
        lambda: transformer.TransformerConfig(num_layers=2).layer_args(2),
        ValueError, "index", "2", "TransformerConfig.layer_args-past-the-last"),
    Bad(DecoderOnlyTransformer, lambda: dec(positional="alibi", nope_layers=(0,)),
        ValueError, "nope_layers", "'alibi'", "DecoderOnlyTransformer-nope_layers-alibi"),
    Bad(transformer.WindowedKVCache, lambda: transformer.WindowedKVCache(1, sinks=-1),
        ValueError, "sinks", "-1", "WindowedKVCache-negative-sinks"),
    Bad(transformer.WindowedKVCache, lambda: transformer.WindowedKVCache(1, window=0),
        ValueError, "window", "0", "WindowedKVCache-empty-window"),
    Bad(transformer.WindowedKVCache, lambda: transformer.WindowedKVCache(1, positions="slot"),
        ValueError, "positions", "'slot'", "WindowedKVCache-unknown-positions"),
    Bad(transformer.WindowedKVCache, lambda: transformer.WindowedKVCache(0),
        ValueError, "num_layers", "0", "WindowedKVCache-no-layers"),
    Bad(transformer.WindowedKVCache.make_room,
        lambda: transformer.WindowedKVCache(1, window=2).make_room(3),
        ValueError, "window", "3", "WindowedKVCache.make_room-more-than-the-window"),
    Bad(transformer.WindowedKVCache.make_room,
        lambda: transformer.WindowedKVCache(1, window=2).make_room(0),
        ValueError, "num_new", "0", "WindowedKVCache.make_room-nothing-new"),
    Bad(DecoderOnlyTransformer.forward,
        lambda: dec()(tokens(1, 3), cache=transformer.WindowedKVCache(1)),
        ValueError, "positional", "'sinusoidal'", "DecoderOnlyTransformer.forward-window-absolute"),
    Bad(transformer.generate,
        lambda: transformer.generate(dec(positional="rotary"), tokens(1, 3), 2, cache="cache"),
        TypeError, "cache", "str", "generate-cache-string"),
    Bad(transformer.generate,
        lambda: transformer.generate(dec(positional="rotary"), tokens(1, 3), 2, use_cache=False,
                                     cache=transformer.WindowedKVCache(1)),
        ValueError, "use_cache", "False", "generate-cache-without-use_cache"),
    Bad(transformer.generate,
        lambda: transformer.generate(dec(positional="rotary"), tokens(1, 3), 2, dynamic_ntk=2.0),
        TypeError, "dynamic_ntk", "2.0", "generate-dynamic_ntk-number"),
    Bad(transformer.generate,
        lambda: transformer.generate(dec(positional="rotary"), tokens(1, 3), 2,
                                     dynamic_ntk=(0.5, 8)),
        ValueError, "factor", "0.5", "generate-dynamic_ntk-factor-below-1"),
    Bad(Transformer, lambda: Transformer(5, 6, d_model=8, num_heads=2, tie_embeddings=True),
        ValueError, "tgt_vocab_size", "6", "Transformer-tie-different-vocabularies"),
    Bad(enc.require_scheme, lambda: enc.require_scheme("rope", 8, 2),
        ValueError, "positional", "'rope'", "require_scheme-unknown"),
    Bad(enc.PositionScheme, lambda: enc.PositionScheme("x", "inside", "a scheme"),
        ValueError, "enters", "'inside'", "PositionScheme-unknown-entry"),
    Bad(enc.PositionScheme, lambda: enc.PositionScheme("x", "embedding", "no builder"),
        ValueError, "embedding", "none", "PositionScheme-missing-builder"),
    Bad(Transformer, lambda: model(positional="rope"),
        ValueError, "positional", "'rope'", "Transformer-unknown-positional"),
    Bad(Transformer, lambda: model(d_model=10, num_heads=4),
        ValueError, "num_heads", "4", "Transformer-heads-not-dividing"),
    Bad(Transformer, lambda: model(d_model=7, num_heads=1),
        ValueError, "d_model", "7", "Transformer-odd-d_model-sinusoidal"),
    Bad(Transformer, lambda: model(d_model=6, num_heads=2, positional="rotary"),
        ValueError, "num_heads", "2", "Transformer-rope-odd-d_k"),
    Bad(Transformer, lambda: model(num_layers=0),
        ValueError, "num_layers", "0", "Transformer-zero-layers"),
    Bad(Transformer, lambda: Transformer(0, 7, d_model=8, num_heads=2),
        ValueError, "src_vocab_size", "0", "Transformer-zero-src-vocab"),
    Bad(Transformer, lambda: model(positional="relative", relative_max_distance=0),
        ValueError, "relative_max_distance", "0", "Transformer-zero-distance"),
    Bad(Transformer, lambda: model(norm_first=1),
        TypeError, "norm_first", "1", "Transformer-int-norm_first"),
    Bad(Transformer.forward, lambda: model()(t(1, 3), tokens(1, 3)),
        TypeError, "src", "torch.float32", "Transformer.forward-float-src"),
    Bad(Transformer.forward, lambda: model()(tokens(1, 3), tokens(3)),
        ValueError, "tgt", "(3,)", "Transformer.forward-1d-tgt"),
    Bad(Transformer.forward, lambda: model()(tokens(1, 3), tokens(1, 3), src_mask=t(1, 1, 1, 3)),
        TypeError, "src_mask", "torch.float32", "Transformer.forward-float-src_mask"),
    Bad(Transformer.forward, lambda: model()(tokens(1, 3), tokens(1, 3), src_mask=b(1, 1, 1, 4)),
        ValueError, "src_mask", "(1, 1, 1, 4)", "Transformer.forward-src_mask-not-broadcast"),
    Bad(Transformer.forward, lambda: model()(tokens(1, 3), tokens(1, 3), tgt_mask=b(2, 1, 3, 3)),
        ValueError, "tgt_mask", "(2, 1, 3, 3)", "Transformer.forward-tgt_mask-enlarges-batch"),
    Bad(Transformer.forward, lambda: model()(tokens(1, 9), tokens(1, 3)),
        ValueError, "max_len", "9", "Transformer.forward-longer-than-table"),
    Bad(Transformer.encode, lambda: model().encode(tokens(1, 2, 3)),
        ValueError, "src", "(1, 2, 3)", "Transformer.encode-3d-src"),
    Bad(Transformer.decode, lambda: model().decode(tokens(1, 3), t(1, 3, 6)),
        ValueError, "memory", "(1, 3, 6)", "Transformer.decode-memory-width"),
    Bad(Transformer.decode, lambda: model().decode(tokens(1, 3), t(2, 3, 8)),
        ValueError, "memory", "(2, 3, 8)", "Transformer.decode-memory-batch"),
    Bad(DecoderOnlyTransformer, lambda: DecoderOnlyTransformer(0),
        ValueError, "vocab_size", "0", "DecoderOnlyTransformer-zero-vocab"),
    Bad(DecoderOnlyTransformer, lambda: lm(positional="absolute"),
        ValueError, "positional", "'absolute'", "DecoderOnlyTransformer-unknown-positional"),
    Bad(DecoderOnlyTransformer, lambda: lm(d_model=12, num_heads=5),
        ValueError, "num_heads", "5", "DecoderOnlyTransformer-heads-not-dividing"),
    Bad(DecoderOnlyTransformer, lambda: lm(dropout=1.0),
        ValueError, "dropout", "1.0", "DecoderOnlyTransformer-dropout"),
    Bad(DecoderOnlyTransformer.forward, lambda: lm()(t(1, 3)),
        TypeError, "tokens", "torch.float32", "DecoderOnlyTransformer.forward-float-tokens"),
    Bad(DecoderOnlyTransformer.forward, lambda: lm()(tokens(1, 3), b(1, 1, 4, 4)),
        ValueError, "mask", "(1, 1, 4, 4)", "DecoderOnlyTransformer.forward-mask-not-broadcast"),
    Bad(DecoderOnlyTransformer.forward, lambda: lm()(tokens(1, 9)),
        ValueError, "max_len", "9", "DecoderOnlyTransformer.forward-longer-than-table"),
    Bad(TorchReferenceTransformer, lambda: ref(tie_embeddings=True),
        ValueError, "tie_embeddings", "True", "TorchReferenceTransformer-tie"),
    Bad(Transformer, lambda: Transformer(7, 7, 8),
        TypeError, "config", "int 8", "Transformer-positional-size-as-config"),
    Bad(Transformer, lambda: model(heads=2),
        TypeError, "option", "heads", "Transformer-unknown-option"),
    Bad(DecoderOnlyTransformer, lambda: DecoderOnlyTransformer(7, {"d_model": 8}),
        TypeError, "config", "dict", "DecoderOnlyTransformer-dict-as-config"),
    Bad(TorchReferenceTransformer, lambda: ref(positional="rotary"),
        ValueError, "positional", "'rotary'", "TorchReferenceTransformer-rope-unsupported"),
    Bad(TorchReferenceTransformer, lambda: ref(d_model=9, num_heads=2),
        ValueError, "num_heads", "2", "TorchReferenceTransformer-heads-not-dividing"),
    Bad(TorchReferenceTransformer.forward, lambda: ref()(tokens(1, 3), t(1, 3)),
        TypeError, "tgt", "torch.float32", "TorchReferenceTransformer.forward-float-tgt"),
    Bad(TorchReferenceTransformer.encode, lambda: ref().encode(tokens(1, 3), b(1, 1, 1, 2)),
        ValueError, "src_mask", "(1, 1, 1, 2)", "TorchReferenceTransformer.encode-mask"),
    Bad(TorchReferenceTransformer.decode, lambda: ref().decode(tokens(1, 3), t(1, 3, 6)),
        ValueError, "memory", "(1, 3, 6)", "TorchReferenceTransformer.decode-memory-width"),
    Bad(transformer.set_rotary_scaling, lambda: transformer.set_rotary_scaling(dec(), "ntk", 2.0),
        ValueError, "model", "DecoderOnlyTransformer", "set_rotary_scaling-no-rope"),
    Bad(transformer.set_rotary_scaling,
        lambda: transformer.set_rotary_scaling(dec(positional="rotary"), "ntk", 0.5),
        ValueError, "factor", "0.5", "set_rotary_scaling-factor-below-1"),
    Bad(enc.RotaryPositionalAttention.set_frequencies,
        lambda: enc.RotaryPositionalAttention(4).set_frequencies(t(3)),
        ValueError, "frequencies", "(3,)", "RotaryPositionalAttention.set_frequencies-width"),
    Bad(enc.RotaryPositionalAttention.set_frequencies,
        lambda: enc.RotaryPositionalAttention(4).set_frequencies(t(2, 1)),
        ValueError, "frequencies", "(2, 1)", "RotaryPositionalAttention.set_frequencies-2d"),
    Bad(enc.RotaryPositionalAttention.set_frequencies,
        lambda: enc.RotaryPositionalAttention(4).set_frequencies(t(2, dtype=torch.long)),
        TypeError, "frequencies", "torch.int64", "RotaryPositionalAttention.set_frequencies-int"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4), frequencies=t(2, 1)),
        ValueError, "frequencies", "(2, 1)", "apply_rotary-frequencies-2d"),
    Bad(enc.apply_rotary, lambda: enc.apply_rotary(t(3, 4), frequencies=t(2, dtype=torch.long)),
        TypeError, "frequencies", "torch.int64", "apply_rotary-frequencies-int"),
    Bad(transformer.generate, lambda: transformer.generate(model(), tokens(1, 3), 0),
        TypeError, "model", "Transformer", "generate-encoder-decoder"),
    Bad(transformer.generate, lambda: transformer.generate(dec(), tokens(1, 3), 0),
        ValueError, "max_new_tokens", "0", "generate-zero-new-tokens"),
    Bad(transformer.generate, lambda: transformer.generate(dec(), t(1, 3), 2),
        TypeError, "prompt", "torch.float32", "generate-float-prompt"),
    Bad(attention.KVCache, lambda: attention.KVCache(0),
        ValueError, "num_layers", "0", "KVCache-no-layers"),
    Bad(attention.LayerKVCache.extend, lambda: attention.LayerKVCache().extend(t(1, 2, 3, 4), t(1, 2, 3)),
        ValueError, "v", "(1, 2, 3)", "LayerKVCache.extend-3d-values"),
    Bad(attention.LayerKVCache.extend, lambda: attention.LayerKVCache().extend(t(1, 2, 3, 4), t(1, 2, 2, 4)),
        ValueError, "k and v", "(1, 2, 2, 4)", "LayerKVCache.extend-shapes-differ"),
    Bad(transformer.greedy_decode, lambda: transformer.greedy_decode(model(), tokens(1, 3), 0, 1),
        ValueError, "max_len", "0", "greedy_decode-zero-max_len"),
    Bad(transformer.greedy_decode, lambda: transformer.greedy_decode(model(), tokens(1, 3), 3, -1),
        ValueError, "bos_id", "-1", "greedy_decode-negative-bos"),
    Bad(transformer.greedy_decode, lambda: transformer.greedy_decode(model(), t(1, 3), 3, 1),
        TypeError, "src", "torch.float32", "greedy_decode-float-src"),
    Bad(transformer.greedy_decode,
        lambda: transformer.greedy_decode(model(), tokens(1, 3), 3, 1, src_mask=t(1, 1, 1, 3)),
        TypeError, "src_mask", "torch.float32", "greedy_decode-float-src_mask"),
    Bad(transformer.greedy_decode, lambda: transformer.greedy_decode("model", tokens(1, 3), 3, 1),
        TypeError, "model", "str", "greedy_decode-str-model"),
    Bad(transformer.greedy_decode, lambda: transformer.greedy_decode(model(), tokens(1, 3), 3, 9),
        ValueError, "bos_id", "9", "greedy_decode-bos-past-vocab"),
    Bad(transformer.count_parameters, lambda: transformer.count_parameters("model"),
        TypeError, "module", "str", "count_parameters-str"),
    # ---------------------------------------------------------------- training
    Bad(training.init_attention_like_torch, lambda: training.init_attention_like_torch("model"),
        TypeError, "model", "str", "init_attention_like_torch-str"),
    Bad(training.init_attention_like_torch,
        lambda: training.init_attention_like_torch(torch.nn.Linear(4, 4)),
        ValueError, "model", "Linear", "init_attention_like_torch-no-attention"),
    Bad(training.noam_lr, lambda: training.noam_lr(0, 8, 10),
        ValueError, "step", "0", "noam_lr-zero-step"),
    Bad(training.noam_lr, lambda: training.noam_lr(1, 8, -1),
        ValueError, "warmup_steps", "-1", "noam_lr-negative-warmup"),
    Bad(training.noam_lr, lambda: training.noam_lr(1, 8, 4, factor=0),
        ValueError, "factor", "0", "noam_lr-zero-factor"),
    Bad(training.cooldown_factor, lambda: training.cooldown_factor(11, 10, 2),
        ValueError, "step", "11", "cooldown_factor-step-past-end"),
    Bad(training.cooldown_factor, lambda: training.cooldown_factor(1, 10, 20),
        ValueError, "cooldown_steps", "20", "cooldown_factor-longer-than-training"),
    Bad(training.cooldown_factor, lambda: training.cooldown_factor(1, 10.0, 2),
        TypeError, "num_steps", "10.0", "cooldown_factor-float-steps"),
    Bad(training.noam_lr, lambda: training.noam_lr(1, 8.0, 4),
        TypeError, "d_model", "8.0", "noam_lr-float-d_model"),
    Bad(training.noam_scheduler, lambda: training.noam_scheduler(adam(lr=1e-3), 8, 4),
        ValueError, "lr", "0.001", "noam_scheduler-lr-not-one"),
    Bad(training.noam_scheduler, lambda: training.noam_scheduler(adam(), 0, 4),
        ValueError, "d_model", "0", "noam_scheduler-zero-d_model"),
    Bad(training.noam_scheduler, lambda: training.noam_scheduler("adam", 8, 4),
        TypeError, "optimizer", "str", "noam_scheduler-str-optimizer"),
    Bad(training.sequence_loss, lambda: training.sequence_loss(t(2, 7), tokens(2, 4)),
        ValueError, "logits", "(2, 7)", "sequence_loss-2d-logits"),
    Bad(training.sequence_loss, lambda: training.sequence_loss(t(2, 4, 7), t(2, 4)),
        TypeError, "targets", "torch.float32", "sequence_loss-float-targets"),
    Bad(training.sequence_loss, lambda: training.sequence_loss(t(2, 3, 7), tokens(2, 4)),
        ValueError, "targets", "(2, 4)", "sequence_loss-length-mismatch"),
    Bad(training.sequence_loss,
        lambda: training.sequence_loss(t(2, 4, 7), tokens(2, 4), label_smoothing=1.0),
        ValueError, "label_smoothing", "1.0", "sequence_loss-label_smoothing-one"),
    Bad(training.token_accuracy, lambda: training.token_accuracy(t(2, 4), tokens(2, 4)),
        TypeError, "predictions", "torch.float32", "token_accuracy-float-predictions"),
    Bad(training.token_accuracy, lambda: training.token_accuracy(tokens(3, 4), tokens(2, 4)),
        ValueError, "predictions", "3", "token_accuracy-batch-mismatch"),
    Bad(training.exact_match, lambda: training.exact_match(tokens(2, 4), tokens(4)),
        ValueError, "targets", "(4,)", "exact_match-1d-targets"),
    Bad(training.exact_match, lambda: training.exact_match(tokens(2, 4), tokens(2, 4), None),
        TypeError, "pad_id", "None", "exact_match-None-pad_id"),
    Bad(training.train_step, lambda: training.train_step(model(), t(2, 4), tokens(2, 5), adam()),
        TypeError, "src", "torch.float32", "train_step-float-src"),
    Bad(training.train_step,
        lambda: training.train_step(model(), tokens(2, 4), tokens(2, 5), adam(), label_smoothing=2.0),
        ValueError, "label_smoothing", "2.0", "train_step-label_smoothing"),
    Bad(training.train_step, lambda: training.train_step(model(), tokens(2, 4), tokens(5), adam()),
        ValueError, "tgt", "(5,)", "train_step-1d-tgt"),
    Bad(training.train_step,
        lambda: training.train_step(model(), tokens(2, 4), tokens(2, 5), adam(), clip_norm=-1.0),
        ValueError, "clip_norm", "-1.0", "train_step-negative-clip_norm"),
    Bad(training.train_step,
        lambda: training.train_step(model(), tokens(2, 4), tokens(2, 5), "adam"),
        TypeError, "optimizer", "str", "train_step-str-optimizer"),
    Bad(training.train, lambda: training.train(model(), batches(), 0),
        ValueError, "num_steps", "0", "train-zero-steps"),
    Bad(training.train, lambda: training.train(torch.nn.Linear(2, 2), batches(), 1),
        TypeError, "d_model", "None", "train-model-without-d_model"),
    Bad(training.train, lambda: training.train(model(), batches(), 1, warmup_steps=0),
        ValueError, "warmup_steps", "0", "train-zero-warmup"),
    Bad(training.train, lambda: training.train(model(), batches(), 1, clip_norm=-1.0),
        ValueError, "clip_norm", "-1.0", "train-negative-clip_norm"),
    Bad(training.train, lambda: training.train(model(), batches(), 1, progress="no"),
        TypeError, "progress", "'no'", "train-str-progress"),
    Bad(training.train, lambda: training.train(model(), [batch()], 2, progress=False),
        ValueError, "batches", "2", "train-batches-run-out"),
    Bad(training.train, lambda: training.train(model(), 42, 1, progress=False),
        TypeError, "batches", "int", "train-int-batches"),
    Bad(training.evaluate, lambda: training.evaluate(model(), t(2, 4), tokens(2, 5)),
        TypeError, "src", "torch.float32", "evaluate-float-src"),
    Bad(training.evaluate, lambda: training.evaluate(model(), tokens(2, 4), tokens(5)),
        ValueError, "tgt", "(5,)", "evaluate-1d-tgt"),
    Bad(training.evaluate, lambda: training.evaluate(model(), tokens(2, 4), tokens(2, 1)),
        ValueError, "tgt", "(2, 1)", "evaluate-tgt-without-labels"),
    Bad(training.evaluate, lambda: training.evaluate(model(), tokens(2, 4), tokens(3, 5)),
        ValueError, "tgt", "(3, 5)", "evaluate-batch-mismatch"),
    # ---------------------------------------------------------------- plots
    Bad(plots.plot_encoding, lambda: plots.plot_encoding(np.zeros(5)),
        ValueError, "pe", "(5,)", "plot_encoding-1d"),
    Bad(plots.plot_encoding, lambda: plots.plot_encoding(t(2, 3, 4)),
        ValueError, "pe", "(2, 3, 4)", "plot_encoding-3d-tensor"),
    Bad(plots.plot_attention, lambda: plots.plot_attention(np.zeros((1, 2, 2))),
        ValueError, "weights", "(1, 2, 2)", "plot_attention-3d"),
    Bad(plots.plot_attention, lambda: plots.plot_attention(np.zeros((2, 3)), keys=["a", "b"]),
        ValueError, "keys", "2", "plot_attention-too-few-keys"),
    Bad(plots.plot_attention,
        lambda: plots.plot_attention(np.zeros((2, 3)), queries=["a", "b", "c"]),
        ValueError, "queries", "3", "plot_attention-too-many-queries"),
    Bad(plots.set_style, lambda: plots.set_style(0),
        ValueError, "dpi", "0", "set_style-zero-dpi"),
    Bad(plots.set_style, lambda: plots.set_style(png_scale=8),
        ValueError, "png_scale", "8", "set_style-png-scale-too-large"),
    Bad(plots.smallest_text, lambda: plots.smallest_text(plt.gca()),
        TypeError, "fig", "Axes", "smallest_text-axes-not-figure"),
    Bad(plots.figure_png, lambda: plots.figure_png("figure.png"),
        TypeError, "fig", "str", "figure_png-path-not-figure"),
    Bad(plots.figure_png, lambda: plots.figure_png(plt.figure(), dpi=0),
        ValueError, "dpi", "0", "figure_png-zero-dpi"),
    Bad(plots.read_text_size, lambda: plots.read_text_size("iVBORw0KGgo="),
        TypeError, "png", "str", "read_text_size-base64-text"),
    Bad(plots.read_text_size, lambda: plots.read_text_size(b"GIF89a..."),
        ValueError, "png", "GIF89a", "read_text_size-not-a-png"),
    Bad(plots.draw_transformer, lambda: plots.draw_transformer("encoder-only"),
        ValueError, "variant", "'encoder-only'", "draw_transformer-unknown-variant"),
    Bad(plots.draw_transformer, lambda: plots.draw_transformer(highlight="positions"),
        ValueError, "highlight", "'positions'", "draw_transformer-unknown-part"),
    Bad(plots.draw_transformer, lambda: plots.draw_transformer(norm_first="yes"),
        TypeError, "norm_first", "'yes'", "draw_transformer-norm-first-string"),
    # ---------------------------------------------------------------- widgets
    Bad(widgets.draw_encoding, lambda: widgets.draw_encoding(64, 8),
        ValueError, "position", "64", "draw_encoding-position-past-table"),
    Bad(widgets.draw_encoding, lambda: widgets.draw_encoding(3, 7),
        ValueError, "d_model", "7", "draw_encoding-odd-d_model"),
    Bad(widgets.draw_encoding, lambda: widgets.draw_encoding(3, 8, base=0.0),
        ValueError, "base", "0.0", "draw_encoding-zero-base"),
    Bad(widgets.draw_encoding, lambda: widgets.draw_encoding(3, 8, num_positions=0),
        ValueError, "num_positions", "0", "draw_encoding-zero-positions"),
    Bad(widgets.draw_encoding, lambda: widgets.draw_encoding(3, 8, encoding=42),
        TypeError, "encoding", "int", "draw_encoding-encoding-not-callable"),
    Bad(widgets.draw_encoding,
        lambda: widgets.draw_encoding(3, 8, encoding=lambda n, d, base: np.zeros((n, d + 1))),
        ValueError, "encoding", "(64, 9)", "draw_encoding-encoding-wrong-shape"),
    Bad(widgets.explore_encoding, lambda: widgets.explore_encoding(position=-1),
        ValueError, "position", "-1", "explore_encoding-negative-position"),
    Bad(widgets.explore_encoding, lambda: widgets.explore_encoding(d_model=5),
        ValueError, "d_model", "5", "explore_encoding-odd-d_model"),
    Bad(widgets.explore_encoding, lambda: widgets.explore_encoding(position=8, num_positions=8),
        ValueError, "position", "8", "explore_encoding-position-past-table"),
    Bad(widgets.explore_encoding, lambda: widgets.explore_encoding(base="10000"),
        TypeError, "base", "'10000'", "explore_encoding-str-base"),
    # ---------------------------------------------------------------- check_env
    Bad(check_env.read_pins, lambda: check_env.read_pins(42),
        TypeError, "path", "42", "read_pins-int-path"),
    Bad(check_env.run_checks, lambda: check_env.run_checks(["numpy"]),
        TypeError, "pins", "['numpy']", "run_checks-list-pins"),
]
# fmt: on

# fmt: off
# Issue 12 part D: each call raised a raw torch/numpy error or gave a silent wrong result.
CASES += [
    Bad(MultiHeadAttention.forward,
        lambda: mha()(t(1, 3, 8, dtype=torch.float64), t(1, 3, 8), t(1, 3, 8)),
        TypeError, "query", "torch.float64", "MultiHeadAttention.forward-float64-query"),
    Bad(MultiHeadAttention.forward,
        lambda: mha()(t(4, 4, 8), t(4, 4, 8), t(4, 4, 8),
                      torch.tensor([[True, True, True, False]] * 4)),
        ValueError, "mask", "(4, 4)", "MultiHeadAttention.forward-2d-padding-mask-B-equals-L"),
    Bad(EncoderLayer.forward, lambda: EncoderLayer(8, 2, 16)(t(1, 3, 8, dtype=torch.float64)),
        TypeError, "x", "torch.float64", "EncoderLayer.forward-float64-x"),
    Bad(enc.relative_scores,
        lambda: enc.relative_scores(t(3, 4, dtype=torch.float64), t(3, 3, 4)),
        TypeError, "q", "torch.float64", "relative_scores-float64-q"),
    Bad(enc.relative_values,
        lambda: enc.relative_values(t(3, 3, dtype=torch.float64), t(3, 3, 4)),
        TypeError, "weights", "torch.float64", "relative_values-float64-weights"),
    Bad(enc.RelativePositionalEmbedding.scores,
        lambda: enc.RelativePositionalEmbedding(2, 4).scores(t(3, 4, dtype=torch.float64), 3),
        TypeError, "q", "torch.float64", "RelativePositionalEmbedding.scores-float64-q"),
    Bad(attention.causal_mask, lambda: attention.causal_mask(4, device="gpu"),
        ValueError, "device", "'gpu'", "causal_mask-gpu-device"),
    Bad(attention.causal_mask, lambda: attention.causal_mask(4, device=0.5),
        TypeError, "device", "float", "causal_mask-float-device"),
    Bad(enc.alibi_bias, lambda: enc.alibi_bias(4, 2, device="gpu"),
        ValueError, "device", "'gpu'", "alibi_bias-gpu-device"),
    Bad(helpers.seed_everything, lambda: helpers.seed_everything(2**32),
        ValueError, "seed", str(2**32), "seed_everything-over-32-bits"),
    Bad(data.make_dataset, lambda: data.make_dataset("copy", 4, seed=2**64),
        ValueError, "seed", str(2**64), "make_dataset-over-64-bits"),
    Bad(enc.sinusoidal_encoding, lambda: enc.sinusoidal_encoding(4, 4, base=float("inf")),
        ValueError, "base", "inf", "sinusoidal_encoding-inf-base"),
    Bad(training.noam_lr, lambda: training.noam_lr(1, 8, 4, factor=float("inf")),
        ValueError, "factor", "inf", "noam_lr-inf-factor"),
    Bad(training.train,
        lambda: training.train(model(), itertools.repeat((tokens(2, 3), tokens(2, 3))), 1,
                               lr_factor=float("inf"), progress=False),
        ValueError, "lr_factor", "inf", "train-inf-lr_factor"),
    Bad(training.sequence_loss,
        lambda: training.sequence_loss(t(1, 2, 4), torch.tensor([[1, 7]])),
        ValueError, "targets", "7", "sequence_loss-id-past-vocab"),
    Bad(training.sequence_loss,
        lambda: training.sequence_loss(t(1, 2, 4), torch.tensor([[1, -2]])),
        ValueError, "targets", "-2", "sequence_loss-negative-id"),
    Bad(training.sequence_loss,
        lambda: training.sequence_loss(t(1, 2, 4), torch.tensor([[0, 0]])),
        ValueError, "targets", "pad_id=0", "sequence_loss-all-pad"),
    Bad(training.exact_match,
        lambda: training.exact_match(torch.tensor([[1, 2]]), torch.tensor([[0, 0]])),
        ValueError, "targets", "pad_id=0", "exact_match-all-pad"),
    Bad(training.train,
        lambda: training.train(model(), (tokens(2, 3), tokens(2, 3)), 1, progress=False),
        TypeError, "batches", "one pair of tensors", "train-one-batch"),
    Bad(transformer.greedy_decode,
        lambda: transformer.greedy_decode(model(), tokens(1, 0), 3, 1, 2),
        ValueError, "src", "(1, 0)", "greedy_decode-empty-src"),
    Bad(data.apply_task, lambda: data.apply_task("reverse", torch.tensor([[3, 0, 4, 5]])),
        ValueError, "src", "[3, 0, 4, 5]", "apply_task-pad-mid-row"),
    Bad(Transformer.forward, lambda: model()(tokens(2, 3), tokens(3, 3)),
        ValueError, "src and tgt", "(3, 3)", "Transformer.forward-batch-mismatch"),
    Bad(Transformer.encode, lambda: model().encode(tokens(1, 3) + 8),
        ValueError, "src", "11", "Transformer.encode-src-id-past-vocab"),
    Bad(Transformer.decode, lambda: model().decode(tokens(1, 3) + 8, t(1, 3, 8)),
        ValueError, "tgt", "11", "Transformer.decode-tgt-id-past-vocab"),
]
# fmt: on

if not torch.cuda.is_available():
    CASES.append(
        Bad(helpers.get_device, lambda: helpers.get_device("cuda"),
            ValueError, "prefer", "'cuda'", "get_device-cuda-without-cuda")
    )  # fmt: skip


# fmt: off
# Lesson 12's task and recipe (helpers.extrapolation).
CASES += [
    Bad(extrapolation.make_task, lambda: extrapolation.make_task(0, 8, torch.Generator()),
        ValueError, "num", "0", "extrapolation.make_task-zero-num"),
    Bad(extrapolation.make_task, lambda: extrapolation.make_task(2, 8, 5),
        TypeError, "generator", "int", "extrapolation.make_task-int-generator"),
    Bad(extrapolation.answer_mask, lambda: extrapolation.answer_mask(t(2, 8)),
        TypeError, "tokens", "torch.float32", "extrapolation.answer_mask-float-tokens"),
    Bad(extrapolation.build_model, lambda: extrapolation.build_model("rope"),
        ValueError, "scheme", "'rope'", "extrapolation.build_model-unknown-scheme"),
    Bad(extrapolation.learning_rate, lambda: extrapolation.learning_rate(-1),
        ValueError, "step", "-1", "extrapolation.learning_rate-negative-step"),
    Bad(extrapolation.train_on_task, lambda: extrapolation.train_on_task("model", 0),
        TypeError, "model", "str", "extrapolation.train_on_task-str-model"),
    Bad(extrapolation.window_mask, lambda: extrapolation.window_mask(4, 0),
        ValueError, "window", "0", "extrapolation.window_mask-zero-window"),
    Bad(extrapolation.accuracy_by_position,
        lambda: extrapolation.accuracy_by_position(lm(), t(2, 8)),
        TypeError, "tokens", "torch.float32", "extrapolation.accuracy_by_position-float-tokens"),
    Bad(extrapolation.range_accuracies,
        lambda: extrapolation.range_accuracies(lm(), max_len_eval=1000),
        ValueError, "max_len_eval", "1000", "extrapolation.range_accuracies-too-long"),
    Bad(extrapolation.evaluate,
        lambda: extrapolation.evaluate(lm(), torch.zeros(2, 2, dtype=torch.long)),
        ValueError, "tokens", "(2, 2)", "extrapolation.evaluate-too-short"),
    Bad(extrapolation.evaluate,
        lambda: extrapolation.evaluate(lm(), torch.zeros(2, 8, dtype=torch.long), window=0),
        ValueError, "window", "0", "extrapolation.evaluate-zero-window"),
    Bad(extrapolation.evaluation_tokens, lambda: extrapolation.evaluation_tokens(0),
        ValueError, "length", "0", "extrapolation.evaluation_tokens-zero-length"),
    Bad(extrapolation.clamp_rotary_offsets,
        lambda: extrapolation.clamp_rotary_offsets("model", 31),
        TypeError, "model", "str", "extrapolation.clamp_rotary_offsets-str-model"),
    Bad(extrapolation.clamp_rotary_offsets,
        lambda: extrapolation.clamp_rotary_offsets(extrapolation.build_model("rotary"), -1),
        ValueError, "max_offset", "-1", "extrapolation.clamp_rotary_offsets-negative-offset"),
    Bad(extrapolation.move_recall_key,
        lambda: extrapolation.move_recall_key(torch.zeros(2, 8, dtype=torch.long), 5),
        TypeError, "generator", "int", "extrapolation.move_recall_key-int-generator"),
    Bad(extrapolation.evaluation_tokens,
        lambda: extrapolation.evaluation_tokens(2, task="recall"),
        ValueError, "length", "2", "extrapolation.evaluation_tokens-recall-too-short"),
    Bad(extrapolation.make_recall_task,
        lambda: extrapolation.make_recall_task(4, 2, torch.Generator()),
        ValueError, "length", "2", "extrapolation.make_recall_task-too-short"),
    Bad(extrapolation.make_recall_task, lambda: extrapolation.make_recall_task(4, 8, 0),
        TypeError, "generator", "int", "extrapolation.make_recall_task-not-a-generator"),
    Bad(extrapolation.recall_answer_mask,
        lambda: extrapolation.recall_answer_mask(torch.zeros(8, dtype=torch.long)),
        ValueError, "tokens", "(8,)", "extrapolation.recall_answer_mask-1d"),
    Bad(extrapolation.train_on_task,
        lambda: extrapolation.train_on_task(lm(), 0, task="copy"),
        ValueError, "task", "'copy'", "extrapolation.train_on_task-unknown-task"),
    Bad(extrapolation.train_many, lambda: extrapolation.train_many([(lm(), 0)]),
        TypeError, "jobs", "list", "extrapolation.train_many-not-a-mapping"),
    Bad(extrapolation.train_many, lambda: extrapolation.train_many({"a": lm()}),
        TypeError, "jobs['a']", "(model, seed)", "extrapolation.train_many-not-a-pair"),
    Bad(extrapolation.train_many, lambda: extrapolation.train_many({"a": ("m", 0)}),
        TypeError, "jobs['a'][0]", "str", "extrapolation.train_many-not-a-model"),
    Bad(extrapolation.train_many, lambda: extrapolation.train_many({}, workers=0),
        ValueError, "workers", "0", "extrapolation.train_many-zero-workers"),
    Bad(extrapolation.evaluate_many, lambda: extrapolation.evaluate_many(lm(), t(2, 8)),
        TypeError, "models", "mapping", "extrapolation.evaluate_many-not-a-mapping"),
    Bad(extrapolation.evaluate_many,
        lambda: extrapolation.evaluate_many({"a": lm()}, torch.zeros(2, 8, dtype=torch.long),
                                            workers=-1),
        ValueError, "workers", "-1", "extrapolation.evaluate_many-negative-workers"),
    Bad(extrapolation.learning_rate, lambda: extrapolation.learning_rate(0, steps=10),
        ValueError, "steps", "10", "extrapolation.learning_rate-too-few-steps"),
]
# fmt: on


def _sdpa_inputs():
    generator = torch.Generator().manual_seed(0)
    q, k, v = (torch.randn(2, 2, 3, 4, generator=generator) for _ in range(3))
    bias = torch.zeros(3, 3)
    bias[1] = float("-inf")  # query 1 sees no key
    return q, k, v, bias


def test_sdpa_all_minus_inf_bias_row_gives_zeros_on_both_paths():
    q, k, v, bias = _sdpa_inputs()
    out, weights = attention.scaled_dot_product_attention(q, k, v, attn_bias=bias)
    assert not out.isnan().any() and not weights.isnan().any()
    assert torch.equal(out[..., 1, :], torch.zeros(2, 2, 4))
    assert torch.equal(weights[..., 1, :], torch.zeros(2, 2, 3))
    assert torch.allclose(weights[..., 0, :].sum(-1), torch.ones(2, 2))
    fused = attention._fused_attention(q, k, v, None, 0.0, bias)
    assert torch.allclose(fused, out, atol=1e-6)
    mask = torch.tensor([[True, True, False]] * 3)  # with a mask as well
    out_m, _ = attention.scaled_dot_product_attention(q, k, v, mask, attn_bias=bias)
    assert torch.allclose(attention._fused_attention(q, k, v, mask, 0.0, bias), out_m, atol=1e-6)
    assert torch.equal(out_m[..., 1, :], torch.zeros(2, 2, 4))


def test_2d_causal_mask_is_still_accepted_when_batch_equals_length():
    x = t(4, 4, 8)
    out, _ = mha()(x, x, x, attention.causal_mask(4))
    assert out.shape == (4, 4, 8)


# Every exercise checker hands the learner's function to run_checker, which rejects a
# non-function: one generated case per checker, so a new checker is covered the day it lands.
def _checkers() -> dict[str, Callable]:
    """Every ``check_*`` in ``__all__`` of ``helpers.exercises`` and of its public submodules."""
    found = {}
    for info in pkgutil.iter_modules(exercises.__path__, "helpers.exercises."):
        if not info.name.rpartition(".")[2].startswith("_"):
            module = importlib.import_module(info.name)
            found |= {n: getattr(module, n) for n in module.__all__ if n.startswith("check_")}
    return found | {n: getattr(exercises, n) for n in exercises.__all__ if n.startswith("check_")}


# Notebook 18: position per layer, sinks, decoupled rotary, time-aligned ids, the configuration bank
from helpers import attention_sinks as _sinks  # noqa: E402
from helpers import model_configs as _mc  # noqa: E402
from helpers import per_layer_experiment as _ple  # noqa: E402
from helpers.encodings import per_layer as _pl  # noqa: E402
from helpers.encodings import tmrope as _tm  # noqa: E402
from helpers.transformer import mla as _mla  # noqa: E402
from helpers.transformer import per_layer as _tpl  # noqa: E402


def _pla(**kwargs):
    return _tpl.PerLayerAttention(8, 2, 4, **kwargs)


# fmt: off
CASES += [
    Bad(_pl.proportional_frequencies, lambda: _pl.proportional_frequencies(8, 1.5, 1e4),
        ValueError, "partial_rotary_factor", "1.5", "proportional-p"),
    Bad(_pl.partial_rotary_frequencies_of, lambda: _pl.partial_rotary_frequencies_of(8, 0.1, 1e4),
        ValueError, "partial_rotary_factor", "0", "partial-too-few"),
    Bad(_pl.llama4_attention_temperature,
        lambda: _pl.llama4_attention_temperature(t(3), floor_scale=-1.0),
        ValueError, "floor_scale", "-1.0", "temperature-floor"),
    Bad(_sinks.sliding_window_mask, lambda: _sinks.sliding_window_mask(4, 0),
        ValueError, "window", "0", "window-zero"),
    Bad(_sinks.chunked_mask, lambda: _sinks.chunked_mask(4, 2.5),
        TypeError, "chunk", "2.5", "chunk-float"),
    Bad(_sinks.sink_attention, lambda: _sinks.sink_attention(t(1, 2, 3, 4), t(1, 2, 3, 4), t(1, 2, 3, 4), t(3)),
        ValueError, "sinks", "(3,)", "sinks-per-head"),
    Bad(_tpl.PerLayerAttention, lambda: _pla(window=2, chunk=3),
        ValueError, "window", "2", "pla-window-and-chunk"),
    Bad(_tpl.PerLayerAttention.forward, lambda: _pla()(t(1, 3, 6)),
        ValueError, "x", "(1, 3, 6)", "pla-width"),
    Bad(_tpl.PerLayerAttention.mask, lambda: _pla().mask(0),
        ValueError, "seq_len", "0", "pla-mask-zero"),
    Bad(_tpl.layer_frequencies, lambda: _tpl.layer_frequencies({"rope_type": "yarn"}, 8),
        ValueError, "rope_type", "'yarn'", "layer-frequencies-type"),
    Bad(transformer.TransformerConfig,
        lambda: transformer.TransformerConfig(positional="rotary", num_layers=1, layer_types=("global",), rope_parameters={}),
        ValueError, "layer_types[0]", "'global'", "TransformerConfig-layer-type"),
    Bad(transformer.TransformerConfig.layer_span, lambda: transformer.TransformerConfig().layer_span(2),
        ValueError, "index", "2", "TransformerConfig-layer_span-index"),
    Bad(transformer.TransformerConfig,
        lambda: transformer.TransformerConfig(positional="rotary", num_layers=1, layer_types=("sliding_attention",),
                                              rope_parameters={"sliding_attention": None}, sliding_window=0),
        ValueError, "sliding_window", "0", "TransformerConfig-sliding_window-zero"),
    Bad(transformer.TransformerConfig,
        lambda: transformer.TransformerConfig(positional="rotary", num_layers=1, layer_types=("full_attention",),
                                              rope_parameters=[None]),
        TypeError, "rope_parameters", "[None]", "TransformerConfig-rope_parameters-list"),
    Bad(_pl.QueryTemperature, lambda: _pl.QueryTemperature(attn_scale=0.0),
        ValueError, "attn_scale", "0.0", "query-temperature-scale"),
    Bad(_mla.yarn_softmax_scale, lambda: _mla.yarn_softmax_scale(192, 40.0, -1.0),
        ValueError, "mscale_all_dim", "-1.0", "mla-mscale"),
    Bad(_mla.kv_cache_bytes_per_token, lambda: _mla.kv_cache_bytes_per_token(61, 0, 128),
        ValueError, "num_kv_heads", "0", "kv-bytes-heads"),
    Bad(_mla.mla_cache_bytes_per_token, lambda: _mla.mla_cache_bytes_per_token(61, 512, -1),
        ValueError, "qk_rope_head_dim", "-1", "mla-bytes-rope"),
    Bad(_mla.DecoupledRotaryMLA, lambda: _mla.DecoupledRotaryMLA(
            16, 4, kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=3, v_head_dim=4),
        ValueError, "qk_rope_head_dim", "3", "mla-odd-rope"),
    Bad(_mla.DecoupledRotaryMLA.cache_entries, lambda: _mla.DecoupledRotaryMLA(
            16, 4, kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4
        ).cache_entries(t(1, 3, 8)),
        ValueError, "x", "(1, 3, 8)", "mla-cache-width"),
    Bad(_mla.DecoupledRotaryMLA.scores, lambda: _mla.DecoupledRotaryMLA(
            16, 4, kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4
        ).scores(t(3, 16)),
        ValueError, "x", "(3, 16)", "mla-scores-rank"),
    Bad(_mla.DecoupledRotaryMLA.forward, lambda: _mla.DecoupledRotaryMLA(
            16, 4, kv_lora_rank=8, qk_nope_head_dim=4, qk_rope_head_dim=4, v_head_dim=4
        )(t(1, 3, 16, dtype=torch.long)),
        TypeError, "x", "int64", "mla-forward-dtype"),
    Bad(_tm.tmrope_temporal_ids, lambda: _tm.tmrope_temporal_ids(3, 0.0),
        ValueError, "seconds_per_grid", "0.0", "tmrope-seconds"),
    Bad(_tm.tmrope_chunks, lambda: _tm.tmrope_chunks(torch.tensor([0, 5]), 0),
        ValueError, "ids_per_chunk", "0", "tmrope-chunk"),
    Bad(_tm.tmrope_position_ids, lambda: _tm.tmrope_position_ids(0, (2, 2, 2), 1.0, 0),
        ValueError, "num_audio_tokens", "0", "tmrope-audio"),
    Bad(_mc.build_config, lambda: _mc.build_config("Llama 5"),
        ValueError, "name", "'Llama 5'", "bank-name"),
    Bad(_mc.per_layer_table, lambda: _mc.per_layer_table({"num_hidden_layers": 2}),
        TypeError, "config", "dict", "bank-reader-dict"),
    Bad(_ple.per_layer_config, lambda: _ple.per_layer_config("alibi"),
        ValueError, "scheme", "'alibi'", "experiment-18-scheme"),
    Bad(_ple.build_per_layer_model, lambda: _ple.build_per_layer_model(3),
        TypeError, "scheme", "3", "experiment-18-model"),
]
# fmt: on

CASES += [
    Bad(checker, lambda checker=checker: checker(None), TypeError, "fn", "NoneType", f"{name}-None")
    for name, checker in sorted(_checkers().items())
]


def _param(case: Bad):
    marks = []
    if case.missing:
        marks = [pytest.mark.xfail(strict=True, reason=case.missing, raises=case.now)]
    return pytest.param(case, id=case.id, marks=marks)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_bad_input_raises_a_clear_error(case: Bad):
    with pytest.raises(case.error) as info:
        case.call()
    message = str(info.value)
    assert case.names in message, f"message does not name {case.names!r}: {message}"
    assert case.shows in message, f"message does not show the bad value {case.shows!r}: {message}"


def test_case_ids_are_unique_and_the_matrix_is_large():
    ids = [c.id for c in CASES]
    assert len(ids) == len(set(ids)), sorted(i for i in ids if ids.count(i) > 1)
    assert len(CASES) >= 60


# ------------------------------------------------------------------------------ completeness


def _takes_arguments(fn, *, method: bool) -> bool:
    params = list(inspect.signature(fn).parameters.values())
    return len(params) > (1 if method else 0)


def _label(obj) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


def public_callables() -> dict[str, object]:
    """Every public function, class and public method (forward included) that takes arguments.

    Re-exported names count once (by identity). Methods count only where the class defines them.
    """
    found: dict[str, object] = {}
    for module in public_modules():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj):
                if _takes_arguments(obj, method=False):
                    found[_label(obj)] = obj
                for attr, member in vars(obj).items():
                    public = not attr.startswith("_") or attr == "forward"
                    if (
                        public
                        and inspect.isfunction(member)
                        and attr != "extra_repr"
                        and _takes_arguments(member, method=True)
                    ):
                        found[_label(member)] = member
            elif callable(obj) and _takes_arguments(obj, method=False):
                found[_label(obj)] = obj
    return found


def test_every_public_module_declares_all():
    missing = [m.__name__ for m in public_modules() if not hasattr(m, "__all__")]
    assert not missing, f"public modules without __all__ (add one): {missing}"


def test_every_public_callable_has_a_bad_input_case():
    covered = {id(c.target) for c in CASES} | {id(obj) for obj in EXEMPT}
    missing = sorted(label for label, obj in public_callables().items() if id(obj) not in covered)
    assert not missing, "public callables without a case in tests/test_bad_inputs.py: " + ", ".join(
        missing
    )


def test_exemptions_and_targets_are_still_public():
    public = {id(obj) for obj in public_callables().values()}
    stale = [_label(obj) for obj in EXEMPT if id(obj) not in public]
    stale += sorted({c.id for c in CASES if id(c.target) not in public})
    assert not stale, f"cases or exemptions for names that are no longer public: {stale}"


def test_plot_attention_accepts_bfloat16():
    weights = torch.tensor([[0.25, 0.75], [0.5, 0.5]], dtype=torch.bfloat16)
    plotted = plots.plot_attention(weights)  # returns the array it plots
    np.testing.assert_allclose(plotted, [[0.25, 0.75], [0.5, 0.5]])
