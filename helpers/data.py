"""Seeded toy sequence tasks for training a Transformer in seconds: copy, reverse and sort.

Token ids: the special tokens come first, then the symbols::

    PAD_ID = 0    padding, ignored by the loss and masked in attention
    BOS_ID = 1    "begin of sequence": the decoder's first input token
    EOS_ID = 2    "end of sequence": the decoder's last target token
    symbol s (0 <= s < num_symbols)  ->  token id NUM_SPECIAL + s

A batch is a pair ``(src, tgt)`` of ``torch.long`` tensors:

- ``src (batch, max_len)``: the input symbols, right-padded with ``PAD_ID``;
- ``tgt (batch, max_len + 2)``: ``[BOS, target symbols..., EOS, PAD, ...]``.

For teacher forcing the decoder reads ``tgt[:, :-1]`` and learns to predict ``tgt[:, 1:]``.
"""

from __future__ import annotations

from collections.abc import Iterator

import torch

from ._checks import require_bool, require_choice, require_int, require_tensor

__all__ = [
    "PAD_ID",
    "BOS_ID",
    "EOS_ID",
    "NUM_SPECIAL",
    "TASKS",
    "vocab_size",
    "apply_task",
    "make_batch",
    "make_dataset",
    "batch_stream",
    "iterate_minibatches",
    "to_symbols",
]

PAD_ID = 0
BOS_ID = 1
EOS_ID = 2
NUM_SPECIAL = 3
TASKS = ("copy", "reverse", "sort")


def vocab_size(num_symbols: int) -> int:
    """Number of token ids a model needs: the special tokens plus ``num_symbols`` symbols.

    Used in notebooks 05, 09, 10 and 13.
    """
    return NUM_SPECIAL + require_int("num_symbols", num_symbols, minimum=1)


def apply_task(task: str, src: torch.Tensor, pad_id: int = PAD_ID) -> torch.Tensor:
    """The target of ``task`` for each row of ``src (batch, L)``, padding kept at the end.

    ``"copy"`` returns the row, ``"reverse"`` reverses its non-pad part, ``"sort"`` sorts its
    non-pad part in increasing order. Returns a tensor of the same shape as ``src``.

    The toy tasks of notebooks 09, 10 and 13 (via :func:`make_batch`, which
    :func:`make_dataset` and :func:`batch_stream` call).
    """
    task = require_choice("task", task, TASKS)
    require_tensor("src", src, ndim=2, integer=True)
    pad_id = require_int("pad_id", pad_id)
    is_token = src != pad_id  # (B, L)
    if (is_token[:, 1:] & ~is_token[:, :-1]).any():
        row = int((is_token[:, 1:] & ~is_token[:, :-1]).any(dim=1).nonzero()[0])
        raise ValueError(
            f"src must hold padding (pad_id={pad_id}) only at the end of each row, got row {row}: "
            f"{src[row].tolist()}"
        )
    lengths = is_token.sum(dim=1, keepdim=True)  # (B, 1)
    if task == "copy":
        return src.clone()
    if task == "reverse":
        t = torch.arange(src.shape[1], device=src.device)  # (L,)
        source_index = (lengths - 1 - t).clamp(min=0)  # (B, L): position t reads length-1-t
        return torch.where(is_token, src.gather(1, source_index), src)
    # "sort": padding sorts last if it is replaced by a value larger than every token.
    big = torch.iinfo(src.dtype).max
    return torch.where(is_token, src, big).sort(dim=1).values.masked_fill(~is_token, pad_id)


def make_batch(
    task: str,
    batch_size: int,
    num_symbols: int = 10,
    min_len: int = 16,
    max_len: int | None = None,
    generator: torch.Generator | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """One batch of random sequences and their targets.

    Each row has a length drawn uniformly from ``min_len .. max_len`` (``max_len=None`` means
    ``min_len``: every row has the same length) and symbols drawn uniformly from
    ``num_symbols``. Returns ``src (batch_size, max_len)`` and
    ``tgt (batch_size, max_len + 2) = [BOS, target..., EOS, PAD...]``.

    Used by :func:`make_dataset` and :func:`batch_stream` (notebooks 09, 10 and 13).
    """
    task = require_choice("task", task, TASKS)
    batch_size = require_int("batch_size", batch_size, minimum=1)
    num_symbols = require_int("num_symbols", num_symbols, minimum=1)
    min_len = require_int("min_len", min_len, minimum=1)
    max_len = min_len if max_len is None else require_int("max_len", max_len, minimum=1)
    if max_len < min_len:
        raise ValueError(f"max_len must be >= min_len={min_len}, got {max_len}")
    if generator is not None and not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator or None, got {generator!r}")

    symbols = torch.randint(num_symbols, (batch_size, max_len), generator=generator)
    lengths = torch.randint(min_len, max_len + 1, (batch_size, 1), generator=generator)
    t = torch.arange(max_len)  # (max_len,)
    src = (NUM_SPECIAL + symbols).masked_fill(t >= lengths, PAD_ID)  # (B, max_len)

    target = apply_task(task, src)  # (B, max_len), padded like src
    tgt = torch.full((batch_size, max_len + 2), PAD_ID, dtype=torch.long)
    tgt[:, 0] = BOS_ID
    tgt[:, 1:-1] = target
    tgt.scatter_(1, lengths + 1, EOS_ID)  # EOS right after the last symbol of each row
    return src, tgt


def make_dataset(
    task: str,
    num_sequences: int,
    num_symbols: int = 10,
    min_len: int = 16,
    max_len: int | None = None,
    seed: int = 0,
) -> tuple[torch.Tensor, torch.Tensor]:
    """A fixed, reproducible set of sequences: :func:`make_batch` with its own seeded generator.

    The global random state is neither used nor changed, so a held-out set drawn with another
    seed stays the same whatever the notebook did before. Used in notebooks 09, 10 and 13.
    """
    seed = require_int("seed", seed, minimum=0, maximum=2**64 - 1)
    num_sequences = require_int("num_sequences", num_sequences, minimum=1)
    generator = torch.Generator().manual_seed(seed)
    return make_batch(task, num_sequences, num_symbols, min_len, max_len, generator)


def batch_stream(
    task: str,
    batch_size: int,
    num_symbols: int = 10,
    min_len: int = 16,
    max_len: int | None = None,
    seed: int = 0,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """An endless, seeded stream of fresh batches: every training step sees new sequences.

    Used in notebooks 09, 10 and 13.
    """
    seed = require_int("seed", seed, minimum=0, maximum=2**64 - 1)
    make_batch(task, batch_size, num_symbols, min_len, max_len)  # validate now, not at next()
    return _stream(task, batch_size, num_symbols, min_len, max_len, seed)


def _stream(task, batch_size, num_symbols, min_len, max_len, seed):
    generator = torch.Generator().manual_seed(seed)
    while True:
        yield make_batch(task, batch_size, num_symbols, min_len, max_len, generator)


def iterate_minibatches(
    src: torch.Tensor,
    tgt: torch.Tensor,
    batch_size: int,
    shuffle: bool = False,
    seed: int = 0,
) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
    """One pass over a fixed dataset in minibatches of ``batch_size`` rows (the last may be
    smaller), in order or shuffled with its own seeded generator.

    Not used by the lessons (their training draws from :func:`batch_stream`): for experiments beyond
    notebook 10.
    """
    require_tensor("src", src, ndim=2, integer=True)
    require_tensor("tgt", tgt, ndim=2, integer=True)
    if src.shape[0] != tgt.shape[0]:
        raise ValueError(
            f"src and tgt must have the same number of rows, got {src.shape[0]} and {tgt.shape[0]}"
        )
    batch_size = require_int("batch_size", batch_size, minimum=1)
    seed = require_int("seed", seed, minimum=0, maximum=2**64 - 1)
    require_bool("shuffle", shuffle)
    if shuffle:
        order = torch.randperm(src.shape[0], generator=torch.Generator().manual_seed(seed))
    else:
        order = torch.arange(src.shape[0])
    return ((src[rows], tgt[rows]) for rows in order.split(batch_size))


def to_symbols(ids: torch.Tensor | list[int]) -> list[int]:
    """The symbols of one sequence of token ids, for printing: BOS and PAD are dropped and
    reading stops at the first EOS. ``[1, 5, 3, 2, 0] -> [2, 0]``. Used in notebook 10."""
    if isinstance(ids, torch.Tensor):
        require_tensor("ids", ids, ndim=1, integer=True)
        ids = ids.tolist()
    elif not isinstance(ids, list | tuple) or not all(
        isinstance(i, int) and not isinstance(i, bool) for i in ids
    ):
        raise TypeError(f"ids must be a 1-D integer tensor or a list of ints, got {ids!r}")
    symbols = []
    for token in ids:
        if token == EOS_ID:
            break
        if token >= NUM_SPECIAL:
            symbols.append(token - NUM_SPECIAL)
    return symbols
