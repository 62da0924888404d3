"""Argument checks at their boundary: the smallest value allowed works, the next one down fails
with an error that names the argument and says what was expected.

tests/test_bad_inputs.py tries one clearly wrong value per argument; these cases sit exactly at
the edge (0 versus 1, 2**64 - 1 versus 2**64, a 3-D tensor where 2-D is needed, an integer tensor
where floats are needed), where an off-by-one in a check, or a check that is silently dropped
and caught later by a confusing error deep inside PyTorch, would go unnoticed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import torch

from helpers import data, training
from helpers.attention import MultiHeadAttention
from helpers.transformer import (
    DecoderOnlyTransformer,
    EncoderLayer,
    FeedForward,
    TorchReferenceTransformer,
    Transformer,
)

SEED_MAX = 2**64 - 1  # torch.Generator.manual_seed takes an unsigned 64-bit seed


@dataclass(frozen=True)
class Edge:
    """``ok()`` must succeed; ``bad()`` must raise ``error`` whose message holds every word."""

    id: str
    ok: Callable[[], object]
    bad: Callable[[], object]
    error: type[Exception]
    words: tuple[str, ...]


def ids(*shape: int) -> torch.Tensor:
    return torch.arange(int(torch.tensor(shape).prod())).reshape(shape) % 3 + 3  # no PAD/BOS/EOS


def model(**kwargs) -> Transformer:
    args = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 8, "dropout": 0.0}
    return Transformer(7, 7, **(args | kwargs))


def decoder_only(**kwargs) -> DecoderOnlyTransformer:
    args = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 8}
    return DecoderOnlyTransformer(7, **(args | kwargs))


def reference(**kwargs) -> TorchReferenceTransformer:
    args = {"d_model": 8, "num_heads": 2, "num_layers": 1, "d_ff": 8, "dropout": 0.0}
    return TorchReferenceTransformer(7, 7, **(args | kwargs))


def optimizer_for(m: torch.nn.Module) -> torch.optim.Optimizer:
    return torch.optim.SGD(m.parameters(), lr=0.0)


def batch(src_shape=(2, 3), tgt_shape=(2, 2)) -> tuple[torch.Tensor, torch.Tensor]:
    return ids(*src_shape), ids(*tgt_shape)


MEMORY = torch.zeros(2, 3, 8)

EDGES = [
    # data: counts start at 1, seeds are unsigned 64-bit
    Edge(
        "vocab_size-1",
        lambda: data.vocab_size(1),
        lambda: data.vocab_size(0),
        ValueError,
        ("num_symbols", "positive", "0"),
    ),
    Edge(
        "make_batch-batch_size",
        lambda: data.make_batch("copy", 1, 1, 1, 1),
        lambda: data.make_batch("copy", 0, 1, 1, 1),
        ValueError,
        ("batch_size", "positive"),
    ),
    Edge(
        "make_batch-num_symbols",
        lambda: data.make_batch("copy", 1, 1),
        lambda: data.make_batch("copy", 1, 0),
        ValueError,
        ("num_symbols", "positive"),
    ),
    Edge(
        "make_batch-min_len",
        lambda: data.make_batch("copy", 1, min_len=1),
        lambda: data.make_batch("copy", 1, min_len=0),
        ValueError,
        ("min_len", "positive"),
    ),
    Edge(
        "make_batch-max_len",
        lambda: data.make_batch("copy", 1, min_len=1, max_len=1),
        lambda: data.make_batch("copy", 1, min_len=1, max_len=0),
        ValueError,
        ("max_len", "positive"),
    ),
    Edge(
        "make_dataset-num_sequences",
        lambda: data.make_dataset("copy", 1, min_len=2),
        lambda: data.make_dataset("copy", 0, min_len=2),
        ValueError,
        ("num_sequences", "positive"),
    ),
    Edge(
        "make_dataset-seed-max",
        lambda: data.make_dataset("copy", 1, seed=SEED_MAX),
        lambda: data.make_dataset("copy", 1, seed=SEED_MAX + 1),
        ValueError,
        ("seed", "<="),
    ),
    Edge(
        "make_dataset-seed-min",
        lambda: data.make_dataset("copy", 1, seed=0),
        lambda: data.make_dataset("copy", 1, seed=-1),
        ValueError,
        ("seed", "non-negative"),
    ),
    Edge(
        "batch_stream-seed-max",
        lambda: data.batch_stream("copy", 1, seed=SEED_MAX),
        lambda: data.batch_stream("copy", 1, seed=SEED_MAX + 1),
        ValueError,
        ("seed", "<="),
    ),
    Edge(
        "batch_stream-seed-min",
        lambda: data.batch_stream("copy", 1, seed=0),
        lambda: data.batch_stream("copy", 1, seed=-1),
        ValueError,
        ("seed", "non-negative"),
    ),
    Edge(
        "batch_stream-max_len-checked-at-call",
        lambda: data.batch_stream("copy", 1, 5, 2, 3),
        lambda: data.batch_stream("copy", 1, 5, 3, 2),
        ValueError,
        ("max_len", "min_len"),
    ),
    Edge(
        "iterate_minibatches-seed-max",
        lambda: list(data.iterate_minibatches(*batch(), 1, shuffle=True, seed=SEED_MAX)),
        lambda: list(data.iterate_minibatches(*batch(), 1, shuffle=True, seed=SEED_MAX + 1)),
        ValueError,
        ("seed", "<="),
    ),
    Edge(
        "iterate_minibatches-seed-min",
        lambda: list(data.iterate_minibatches(*batch(), 1, shuffle=True, seed=0)),
        lambda: list(data.iterate_minibatches(*batch(), 1, shuffle=True, seed=-1)),
        ValueError,
        ("seed", "non-negative"),
    ),
    Edge(
        "to_symbols-float-in-list",
        lambda: data.to_symbols([3, 4]),
        lambda: data.to_symbols([3, 2.5]),
        TypeError,
        ("ids",),
    ),
    Edge(
        "to_symbols-set",
        lambda: data.to_symbols((3, 4)),
        lambda: data.to_symbols({3, 4}),
        TypeError,
        ("ids",),
    ),
    # training: T >= 2 (BOS and one token), steps from 1, 2-D integer batches
    Edge(
        "train_step-tgt-length-2",
        lambda: training.train_step(m := model(), *batch(), optimizer_for(m)),
        lambda: training.train_step(m := model(), *batch(tgt_shape=(2, 1)), optimizer_for(m)),
        ValueError,
        ("tgt", "T >= 2"),
    ),
    Edge(
        "train_step-src-3d",
        lambda: training.train_step(m := model(), *batch(), optimizer_for(m)),
        lambda: training.train_step(m := model(), ids(2, 3, 1), ids(2, 2), optimizer_for(m)),
        ValueError,
        ("src", "2 dimensions"),
    ),
    Edge(
        "train_step-tgt-3d",
        lambda: training.train_step(m := model(), *batch(), optimizer_for(m)),
        lambda: training.train_step(m := model(), ids(2, 3), ids(2, 2, 1), optimizer_for(m)),
        ValueError,
        ("tgt", "2 dimensions"),
    ),
    Edge(
        "train_step-float-tgt",
        lambda: training.train_step(m := model(), *batch(), optimizer_for(m)),
        lambda: training.train_step(m := model(), ids(2, 3), ids(2, 2).float(), optimizer_for(m)),
        TypeError,
        ("tgt", "integer"),
    ),
    Edge(
        "train_step-src-float",
        lambda: training.train_step(m := model(), *batch(), optimizer_for(m)),
        lambda: training.train_step(m := model(), ids(2, 3).float(), ids(2, 2), optimizer_for(m)),
        TypeError,
        ("src", "integer"),
    ),
    Edge(
        "train-num_steps",
        lambda: training.train(model(), iter([batch()]), 1, progress=False),
        lambda: training.train(model(), iter([batch()]), 0, progress=False),
        ValueError,
        ("num_steps", "positive"),
    ),
    Edge(
        "train-model-d_model",
        lambda: training.train(model(), iter([batch()]), 1, progress=False),
        lambda: training.train(model_with_d_model(0), iter([batch()]), 1, progress=False),
        ValueError,
        ("model.d_model", "positive"),
    ),
    Edge(
        "noam_lr-d_model",
        lambda: training.noam_lr(1, 1, 1),
        lambda: training.noam_lr(1, 0, 1),
        ValueError,
        ("d_model", "positive"),
    ),
    Edge(
        "noam_lr-warmup",
        lambda: training.noam_lr(1, 1, 1),
        lambda: training.noam_lr(1, 1, 0),
        ValueError,
        ("warmup_steps", "positive"),
    ),
    Edge(
        "cooldown_factor-step",
        lambda: training.cooldown_factor(1, 1, 0),
        lambda: training.cooldown_factor(0, 1, 0),
        ValueError,
        ("step", "positive"),
    ),
    Edge(
        "cooldown_factor-num_steps",
        lambda: training.cooldown_factor(1, 1, 0),
        lambda: training.cooldown_factor(1, 0, 0),
        ValueError,
        ("num_steps", "positive"),
    ),
    Edge(
        "sequence_loss-logits-4d",
        lambda: training.sequence_loss(torch.zeros(1, 2, 5), ids(1, 2)),
        lambda: training.sequence_loss(torch.zeros(1, 2, 5, 1), ids(1, 2)),
        ValueError,
        ("logits", "3 dimensions"),
    ),
    Edge(
        "sequence_loss-integer-logits",
        lambda: training.sequence_loss(torch.zeros(1, 2, 5), ids(1, 2)),
        lambda: training.sequence_loss(torch.zeros(1, 2, 5, dtype=torch.long), ids(1, 2)),
        TypeError,
        ("logits", "float"),
    ),
    Edge(
        "sequence_loss-targets-3d",
        lambda: training.sequence_loss(torch.zeros(1, 2, 5), ids(1, 2)),
        lambda: training.sequence_loss(torch.zeros(1, 2, 5), ids(1, 2, 1)),
        ValueError,
        ("targets", "2 dimensions"),
    ),
    Edge(
        "sequence_loss-id-vocab-1",
        lambda: training.sequence_loss(torch.zeros(1, 1, 5), torch.tensor([[4]])),
        lambda: training.sequence_loss(torch.zeros(1, 1, 5), torch.tensor([[5]])),
        ValueError,
        ("targets", "[0, 5)"),
    ),
    Edge(
        "sequence_loss-id-0-counts",
        lambda: training.sequence_loss(torch.zeros(1, 2, 5), torch.tensor([[0, 1]]), pad_id=4),
        lambda: training.sequence_loss(torch.zeros(1, 2, 5), torch.tensor([[-1, 1]]), pad_id=4),
        ValueError,
        ("targets", "[0, 5)", "-1"),
    ),
    Edge(
        "token_accuracy-predictions-3d",
        lambda: training.token_accuracy(ids(1, 2), ids(1, 2)),
        lambda: training.token_accuracy(ids(1, 2, 1), ids(1, 2)),
        ValueError,
        ("predictions", "2 dimensions"),
    ),
    Edge(
        "token_accuracy-float-targets",
        lambda: training.token_accuracy(ids(1, 2), ids(1, 2)),
        lambda: training.token_accuracy(ids(1, 2), ids(1, 2).float()),
        TypeError,
        ("targets", "integer"),
    ),
    Edge(
        "exact_match-float-predictions",
        lambda: training.exact_match(ids(1, 2), ids(1, 2)),
        lambda: training.exact_match(ids(1, 2).float(), ids(1, 2)),
        TypeError,
        ("predictions", "integer"),
    ),
    Edge(
        "exact_match-batch-sizes-shown",
        lambda: training.exact_match(ids(2, 2), ids(2, 3)),
        lambda: training.exact_match(ids(2, 2), ids(3, 2)),
        ValueError,
        ("2 and 3",),
    ),
    # models and layers: widths from 1, vocabularies from 1, max_len from 1
    Edge(
        "FeedForward-d_model",
        lambda: FeedForward(1, 1),
        lambda: FeedForward(0, 1),
        ValueError,
        ("d_model", "positive"),
    ),
    Edge(
        "FeedForward-d_ff",
        lambda: FeedForward(1, 1),
        lambda: FeedForward(1, 0),
        ValueError,
        ("d_ff", "positive"),
    ),
    Edge(
        "EncoderLayer-d_model",
        lambda: EncoderLayer(1, 1, 1),
        lambda: EncoderLayer(0, 1, 1),
        ValueError,
        ("d_model", "positive"),
    ),
    Edge(
        "EncoderLayer-d_ff",
        lambda: EncoderLayer(1, 1, 1),
        lambda: EncoderLayer(1, 1, 0),
        ValueError,
        ("d_ff", "positive"),
    ),
    Edge(
        "MultiHeadAttention-d_model",
        lambda: MultiHeadAttention(1, 1),
        lambda: MultiHeadAttention(0, 1),
        ValueError,
        ("d_model", "positive"),
    ),
    Edge(
        "Transformer-vocab",
        lambda: Transformer(1, 1, d_model=2, num_heads=1, num_layers=1),
        lambda: Transformer(0, 1, d_model=2, num_heads=1, num_layers=1),
        ValueError,
        ("src_vocab_size", "positive"),
    ),
    Edge(
        "Transformer-tgt-vocab",
        lambda: Transformer(1, 1, d_model=2, num_heads=1, num_layers=1),
        lambda: Transformer(1, 0, d_model=2, num_heads=1, num_layers=1),
        ValueError,
        ("tgt_vocab_size", "positive"),
    ),
    Edge(
        "Transformer-max_len",
        lambda: model(max_len=1),
        lambda: model(max_len=0),
        ValueError,
        ("max_len", "positive"),
    ),
    Edge(
        "Transformer-relative_max_distance-1",
        lambda: model(positional="relative", relative_max_distance=1),
        lambda: model(positional="relative", relative_max_distance=0),
        ValueError,
        ("relative_max_distance", "positive"),
    ),
    Edge(
        "DecoderOnly-relative_max_distance-1",
        lambda: decoder_only(positional="relative", relative_max_distance=1),
        lambda: decoder_only(positional="relative", relative_max_distance=0),
        ValueError,
        ("relative_max_distance", "positive"),
    ),
    Edge(
        "Transformer-odd-d_model-sinusoidal",
        lambda: model(d_model=8, num_heads=1),
        lambda: model(d_model=7, num_heads=1),
        ValueError,
        ("d_model", "even", "sinusoidal"),
    ),
    Edge(
        "Transformer-odd-d_model-learned-ok",
        lambda: model(d_model=7, num_heads=1, positional="learned"),
        lambda: model(d_model=7, num_heads=1, positional="rotary"),
        ValueError,
        ("d_model", "even", "rotary"),
    ),
    Edge(
        "Transformer-odd-head-width-rope",
        lambda: model(d_model=8, num_heads=2, positional="rotary"),
        lambda: model(d_model=12, num_heads=4, positional="rotary"),
        ValueError,
        ("head width", "rotary", "num_heads=4"),
    ),
    Edge(
        "Transformer-odd-head-width-fine-without-rope",
        lambda: model(d_model=12, num_heads=4, positional="sinusoidal"),
        lambda: model(d_model=12, num_heads=4, positional="rotary"),
        ValueError,
        ("rotary",),
    ),
    Edge(
        "TorchReference-vocab",
        lambda: TorchReferenceTransformer(1, 1, d_model=2, num_heads=1),
        lambda: TorchReferenceTransformer(0, 1, d_model=2, num_heads=1),
        ValueError,
        ("src_vocab_size", "positive"),
    ),
    Edge(
        "TorchReference-tgt-vocab",
        lambda: TorchReferenceTransformer(1, 1, d_model=2, num_heads=1),
        lambda: TorchReferenceTransformer(1, 0, d_model=2, num_heads=1),
        ValueError,
        ("tgt_vocab_size", "positive"),
    ),
    Edge(
        "TorchReference-learned",
        lambda: reference(positional="learned"),
        lambda: reference(positional="alibi"),
        ValueError,
        ("positional", "'alibi'"),
    ),
    Edge(
        "TorchReference-none",
        lambda: reference(positional="none"),
        lambda: reference(positional="relative"),
        ValueError,
        ("positional", "'relative'"),
    ),
    Edge(
        "Transformer.decode-memory-2d",
        lambda: model().decode(ids(2, 2), MEMORY),
        lambda: model().decode(ids(2, 2), MEMORY[0]),
        ValueError,
        ("memory", "3 dimensions"),
    ),
    Edge(
        "Transformer.decode-memory-int",
        lambda: model().decode(ids(2, 2), MEMORY),
        lambda: model().decode(ids(2, 2), MEMORY.long()),
        TypeError,
        ("memory", "float"),
    ),
    Edge(
        "Transformer.forward-src-3d",
        lambda: model()(*batch()),
        lambda: model()(ids(2, 3, 1), ids(2, 2)),
        ValueError,
        ("src", "2 dimensions"),
    ),
    Edge(
        "Transformer.forward-tgt-3d",
        lambda: model()(*batch()),
        lambda: model()(ids(2, 3), ids(2, 2, 1)),
        ValueError,
        ("tgt", "2 dimensions"),
    ),
    Edge(
        "Transformer.forward-src-float",
        lambda: model()(*batch()),
        lambda: model()(ids(2, 3).float(), ids(2, 2)),
        TypeError,
        ("src", "integer"),
    ),
    Edge(
        "Transformer.forward-tgt-float",
        lambda: model()(*batch()),
        lambda: model()(ids(2, 3), ids(2, 2).float()),
        TypeError,
        ("tgt", "integer"),
    ),
]


def _token_edges(name: str, make: Callable[[], torch.nn.Module]) -> list[Edge]:
    """Token ids are 2-D integer tensors: ``src`` in ``encode``, ``tgt`` in ``decode``."""
    ok_encode, ok_decode = ids(2, 3), ids(2, 2)
    return [
        Edge(
            f"{name}.encode-src-3d",
            lambda: make().encode(ok_encode),
            lambda: make().encode(ids(2, 3, 1)),
            ValueError,
            ("src", "2 dimensions"),
        ),
        Edge(
            f"{name}.encode-src-float",
            lambda: make().encode(ok_encode),
            lambda: make().encode(ok_encode.float()),
            TypeError,
            ("src", "integer"),
        ),
        Edge(
            f"{name}.decode-tgt-3d",
            lambda: make().decode(ok_decode, MEMORY),
            lambda: make().decode(ids(2, 2, 1), MEMORY),
            ValueError,
            ("tgt", "2 dimensions"),
        ),
        Edge(
            f"{name}.decode-tgt-float",
            lambda: make().decode(ok_decode, MEMORY),
            lambda: make().decode(ok_decode.float(), MEMORY),
            TypeError,
            ("tgt", "integer"),
        ),
    ]


EDGES += _token_edges("Transformer", model) + _token_edges("TorchReference", reference)


def model_with_d_model(d_model: int) -> Transformer:
    m = model()
    m.d_model = d_model
    return m


@pytest.mark.parametrize("edge", EDGES, ids=lambda e: e.id)
def test_checks_sit_exactly_at_their_boundary(edge: Edge):
    torch.manual_seed(0)
    edge.ok()
    with pytest.raises(edge.error) as caught:
        edge.bad()
    message = str(caught.value)
    missing = [word for word in edge.words if word not in message]
    assert not missing, f"{edge.id}: message {message!r} lacks {missing}"
