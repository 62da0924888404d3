"""Lesson 12's length-extrapolation task and training recipe, shared with notebooks 16 and 17.

The task ("sums with resets"): tokens are ``0 .. NUM_VALUES - 1``; the first two are random,
and every later token is the sum of the two before it, modulo ``NUM_VALUES``,

    x_t = (x_{t-2} + x_{t-1}) mod NUM_VALUES,

except at random places (chance ``RESET_RATE`` each) where a fresh random token restarts the
chain. The resets are what make the data honest: without them a sequence would be fixed by its
first two tokens (64 sequences in all, every one seen in training) and periodic, so a model could
key on absolute position. With them the data have no period, test sequences are new (notebook 12
counts the overlap with the training data: 0), and the rule stays local (offsets 1 and 2) and the
same at every position. Only the tokens that follow the rule are scored: a reset is random, and no
model can predict it better than chance.

Notebook 12 derives the task in plain view, shows that it equals :func:`make_task`, then uses
this module; notebooks 16 and 17 measure their own schemes on the same task.

A second task, the *recall probe* (:func:`make_recall_task`), needs the far tokens that the
first one never does: the first token is one of ``RECALL_KEYS`` key tokens, a query token
appears once, anywhere, and the token after it must repeat the first one. Trained on
``TRAIN_LENGTH`` tokens and tested on longer ones, it tells a model that *uses* a long input
(it still answers when the first token is 100 back) from one that merely *tolerates* it; a
sliding window of ``TRAIN_LENGTH`` keys cannot answer it. Every function that takes a
``task`` argument accepts ``"sums"`` (the default) or ``"recall"``.
"""

from __future__ import annotations

import copy
import math
import os
from collections.abc import Hashable, Mapping
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import torch

from ._checks import require_choice, require_int, require_tensor
from .encodings import PositionalAttention, RotaryPositionalAttention, apply_rotary
from .transformer import DecoderOnlyTransformer

__all__ = [
    "NUM_VALUES",
    "VOCAB",
    "RESET_RATE",
    "TRAIN_LENGTH",
    "EVAL_LENGTH",
    "MODEL_SIZE",
    "SCHEMES",
    "RANGES",
    "STEPS",
    "BATCH",
    "PEAK_LR",
    "WARMUP",
    "TEST_SEED",
    "NUM_TEST",
    "EVAL_ROWS",
    "TASKS",
    "RECALL_KEYS",
    "RECALL_QUERY",
    "RECALL_VOCAB",
    "RECALL_STEPS",
    "make_task",
    "answer_mask",
    "make_recall_task",
    "recall_answer_mask",
    "build_model",
    "learning_rate",
    "train_on_task",
    "train_many",
    "window_mask",
    "accuracy_by_position",
    "evaluate",
    "evaluate_many",
    "evaluation_tokens",
    "range_accuracies",
    "clamp_rotary_offsets",
    "move_recall_key",
]

NUM_VALUES = 8  # tokens 0 .. 7, and the modulus of the rule
VOCAB = NUM_VALUES  # what a model's embedding needs
RESET_RATE = 0.25  # chance that a token from t = 2 on is a fresh random one
TRAIN_LENGTH = 32  # L
EVAL_LENGTH = 4 * TRAIN_LENGTH
MODEL_SIZE = {"d_model": 32, "num_heads": 4, "num_layers": 2, "d_ff": 64, "dropout": 0.0}
SCHEMES = ("none", "sinusoidal", "learned", "rotary", "alibi", "relative")
# Accuracy is pooled over the scored tokens whose position t falls in [lo, hi). "Inside L" starts
# at t = 8, not 2: on the first few targets a query sees only a handful of keys, few to be
# distracted by, and every scheme scores at least as well there (notebook 12 checks it); mixing
# them in would flatter "inside L" against the longer ranges.
RANGES = {
    "8 <= t < L": (8, TRAIN_LENGTH),
    "L <= t < 2L": (TRAIN_LENGTH, 2 * TRAIN_LENGTH),
    "2L <= t < 4L": (2 * TRAIN_LENGTH, 4 * TRAIN_LENGTH),
}
STEPS, BATCH, PEAK_LR, WARMUP = 250, 32, 5e-3, 25  # the training recipe
TEST_SEED, NUM_TEST = 12345, 512  # the fresh test data of range_accuracies
EVAL_ROWS = 64  # test rows per forward pass in evaluate (each row is computed on its own)
_TRAIN_SEED_OFFSET = 1000  # training data for seed s come from generator seed 1000 + s
TASKS = ("sums", "recall")
# The recall probe: filler tokens 0 .. NUM_VALUES - 1, then RECALL_KEYS key tokens, then the query
RECALL_KEYS = 4  # key tokens NUM_VALUES .. NUM_VALUES + 3, only ever at position 0
RECALL_QUERY = NUM_VALUES + RECALL_KEYS  # 12: the query token, once per sequence
RECALL_VOCAB = RECALL_QUERY + 1
RECALL_STEPS = 100  # the recall probe is learned fast: one content match, no arithmetic
_RECALL_SEED_OFFSET = 2000  # recall training data for seed s: generator seed 2000 + s


def make_task(num: int, length: int, generator: torch.Generator) -> torch.Tensor:
    """``num`` sequences of ``length`` tokens of the task, ``(num, length)`` int64.

    All tokens are drawn at random first, with one uniform number per place; then, from t = 2
    on, each token whose number is at least ``RESET_RATE`` is replaced by
    ``(x[t-2] + x[t-1]) % NUM_VALUES``. Deterministic given the generator's state.
    Used in notebook 12.
    """
    num = require_int("num", num, minimum=1)
    length = require_int("length", length, minimum=1)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    x = torch.randint(0, NUM_VALUES, (num, length), generator=generator)  # (num, length)
    reset = torch.rand(num, length, generator=generator) < RESET_RATE  # (num, length)
    for t in range(2, length):
        rule = (x[:, t - 2] + x[:, t - 1]) % NUM_VALUES  # (num,)
        x[:, t] = torch.where(reset[:, t], x[:, t], rule)
    return x


def answer_mask(tokens: torch.Tensor) -> torch.Tensor:
    """Boolean ``(num, length)``: True at the scored positions t >= 2, those whose token follows
    the rule (a reset that happens to equal the rule's value counts: it is indistinguishable).

    Used in notebook 12.
    """
    require_tensor("tokens", tokens, ndim=2, integer=True)
    mask = torch.zeros_like(tokens, dtype=torch.bool)
    mask[:, 2:] = tokens[:, 2:] == (tokens[:, :-2] + tokens[:, 1:-1]) % NUM_VALUES
    return mask


def make_recall_task(num: int, length: int, generator: torch.Generator) -> torch.Tensor:
    """``num`` sequences of the recall probe, ``(num, length)`` int64, ``length >= 3``.

    Token 0 is a key (``NUM_VALUES .. RECALL_QUERY - 1``), the rest random fillers
    (``0 .. NUM_VALUES - 1``), except one ``RECALL_QUERY`` token at a uniformly random place
    ``1 .. length - 2``, followed by the answer: token 0 again. Deterministic given the
    generator's state. Used in notebook 12.
    """
    num = require_int("num", num, minimum=1)
    length = require_int("length", length, minimum=3)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    x = torch.randint(0, NUM_VALUES, (num, length), generator=generator)  # (num, length)
    x[:, 0] = torch.randint(NUM_VALUES, RECALL_QUERY, (num,), generator=generator)
    query = torch.randint(1, length - 1, (num,), generator=generator)  # (num,)
    rows = torch.arange(num)
    x[rows, query] = RECALL_QUERY
    x[rows, query + 1] = x[:, 0]
    return x


def recall_answer_mask(tokens: torch.Tensor) -> torch.Tensor:
    """Boolean ``(num, length)``: True at the one scored position of each recall sequence, the
    token right after the query. Used in notebook 12."""
    require_tensor("tokens", tokens, ndim=2, integer=True)
    mask = torch.zeros_like(tokens, dtype=torch.bool)
    mask[:, 1:] = tokens[:, :-1] == RECALL_QUERY
    return mask


_MAKE = {"sums": make_task, "recall": make_recall_task}
_ANSWERS = {"sums": answer_mask, "recall": recall_answer_mask}
_VOCAB = {"sums": VOCAB, "recall": RECALL_VOCAB}
_STEPS = {"sums": STEPS, "recall": RECALL_STEPS}
_SEED_OFFSET = {"sums": _TRAIN_SEED_OFFSET, "recall": _RECALL_SEED_OFFSET}


def build_model(
    scheme: str, max_len: int = EVAL_LENGTH, *, task: str = "sums"
) -> DecoderOnlyTransformer:
    """A lesson-12 model (``MODEL_SIZE``) with positional scheme ``scheme`` and the
    vocabulary of ``task`` (``VOCAB`` or ``RECALL_VOCAB``).

    A learned table gets ``TRAIN_LENGTH`` rows whatever ``max_len`` says: training fills no
    more. Initialised from PyTorch's global generator (seed it first). Used in notebook 12.
    """
    scheme = require_choice("scheme", scheme, SCHEMES)
    max_len = require_int("max_len", max_len, minimum=TRAIN_LENGTH)
    task = require_choice("task", task, TASKS)
    rows = TRAIN_LENGTH if scheme == "learned" else max_len
    return DecoderOnlyTransformer(_VOCAB[task], **MODEL_SIZE, max_len=rows, positional=scheme)


def learning_rate(step: int, steps: int = STEPS) -> float:
    """The recipe's schedule: linear warm-up over ``WARMUP`` steps to ``PEAK_LR``, then a linear
    decay to 0 at ``steps`` (``STEPS``; ``RECALL_STEPS`` for the recall probe). Used in
    notebook 12."""
    steps = require_int("steps", steps, minimum=WARMUP + 1)
    step = require_int("step", step, minimum=0, maximum=steps - 1)
    return PEAK_LR * min((step + 1) / WARMUP, (steps - step) / (steps - WARMUP))


def train_on_task(model: torch.nn.Module, seed: int, *, task: str = "sums") -> torch.nn.Module:
    """Lesson 12's recipe: train ``model`` in place on ``task`` and return it in eval mode.

    Adam (fused), ``STEPS`` steps (``RECALL_STEPS`` for the recall probe) of ``BATCH`` fresh
    sequences of ``TRAIN_LENGTH`` tokens (drawn from generator seed ``1000 + seed``, or
    ``2000 + seed`` for the probe), the :func:`learning_rate` schedule, and a cross-entropy
    loss on the answer tokens only. Deterministic: the same model and seed give the same
    weights. The model must map ``(B, T)`` tokens to ``(B, T, vocabulary)`` logits.
    Used in notebook 12, and by :func:`train_many` (notebooks 12, 16 and 17).
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    task = require_choice("task", task, TASKS)
    seed = require_int("seed", seed, minimum=0, maximum=2**32 - 1 - _RECALL_SEED_OFFSET)
    steps, answers = _STEPS[task], _ANSWERS[task]
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=PEAK_LR, fused=True)
    generator = torch.Generator().manual_seed(_SEED_OFFSET[task] + seed)
    data = _MAKE[task](steps * BATCH, TRAIN_LENGTH, generator)  # (steps * BATCH, L)
    for step, x in enumerate(data.split(BATCH)):  # x: (BATCH, L)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step, steps)
        scored = answers(x)[:, 1:]  # (BATCH, L - 1): targets x_1 .. x_{L-1} that count
        logits = model(x)[:, :-1]  # (BATCH, L - 1, VOCAB): guesses for x_1 .. x_{L-1}
        loss = torch.nn.functional.cross_entropy(logits[scored], x[:, 1:][scored])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def train_many(
    jobs: Mapping[Hashable, tuple[torch.nn.Module, int]],
    *,
    task: str = "sums",
    workers: int | None = None,
) -> dict[Hashable, torch.nn.Module]:
    """Train several models at once: ``jobs`` maps a key to ``(untrained model, seed)``; the
    result maps the same key to the model after :func:`train_on_task`.

    Each model trains in its own thread, so with ``torch.set_num_threads(1)`` each gets a core
    of its own; the weights are bit-identical to training one model after another (each run
    uses only its own model and its own data generator). ``workers`` defaults to the cores
    left after each model's ``torch.get_num_threads()``. Used in notebooks 12, 16, 17 and 18.
    """
    if not isinstance(jobs, Mapping):
        raise TypeError(f"jobs must be a mapping key -> (model, seed), got {type(jobs).__name__}")
    for key, job in jobs.items():
        if not (isinstance(job, tuple) and len(job) == 2):
            raise TypeError(f"jobs[{key!r}] must be a (model, seed) pair, got {job!r}")
        _require_model(f"jobs[{key!r}][0]", job[0])
    task = require_choice("task", task, TASKS)
    return _in_threads(lambda job: train_on_task(*job, task=task), jobs, workers)


def _require_model(name: str, model: object) -> None:
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"{name} must be a torch.nn.Module, got {type(model).__name__}")


def _in_threads(fn, items: Mapping, workers: int | None) -> dict:
    """``{key: fn(item)}`` for ``items``, run in up to ``workers`` threads (default: the cores
    left after torch's own threads); each call must touch only its own item."""
    if workers is None:
        workers = max(1, (os.cpu_count() or 1) // torch.get_num_threads())
    workers = require_int("workers", workers, minimum=1)
    with ThreadPoolExecutor(max_workers=min(workers, max(len(items), 1))) as pool:
        return dict(zip(items, pool.map(fn, items.values()), strict=True))


def window_mask(length: int, window: int) -> torch.Tensor:
    """Boolean ``(length, length)``: query i may see keys i - window + 1 .. i (a causal sliding
    window of ``window`` tokens, itself included). Used by :func:`evaluate_many` with ``window=``
    (notebook 12's baseline)."""
    length = require_int("length", length, minimum=1)
    window = require_int("window", window, minimum=1)
    i = torch.arange(length)[:, None]
    j = torch.arange(length)[None, :]
    return (j <= i) & (j > i - window)


@torch.no_grad()
def accuracy_by_position(
    model: torch.nn.Module, tokens: torch.Tensor, *, window: int | None = None, task: str = "sums"
) -> np.ndarray:
    """Accuracy of the answers at each target position: ``(length,)`` float64, entry t the
    share of sequences with an answer at t that the model predicts right from the true prefix
    ``tokens[:, :t]``; NaN where no sequence has an answer at t.

    ``window``: if given, every query sees only its last ``window`` tokens (the model must
    accept a ``mask`` argument). The first half of :func:`evaluate`'s result, for one model:
    notebooks 12, 16 and 17 get it for several at once from :func:`evaluate_many`.
    """
    return evaluate(model, tokens, window=window, task=task)[0]


@torch.no_grad()
def evaluate(
    model: torch.nn.Module, tokens: torch.Tensor, *, window: int | None = None, task: str = "sums"
) -> tuple[np.ndarray, dict[str, float]]:
    """One forward pass, two summaries: :func:`accuracy_by_position` and the accuracy pooled
    over the answers of each range of ``RANGES`` (NaN for a range that does not fit in
    ``tokens`` or holds no answer). Run for each model by :func:`evaluate_many` in notebook 12,
    which needs both."""
    require_tensor("tokens", tokens, ndim=2, integer=True)
    task = require_choice("task", task, TASKS)
    if tokens.shape[1] < 3:
        raise ValueError(f"tokens must hold at least 3 positions, got shape {tuple(tokens.shape)}")
    if window is not None:
        window = require_int("window", window, minimum=1)
    correct, counts = _answer_hits(model, tokens, window, _ANSWERS[task])  # (length,) each
    by_position = np.where(counts > 0, correct / np.maximum(counts, 1), np.nan)
    by_range = {}
    for name, (lo, hi) in RANGES.items():
        answers = counts[lo:hi].sum()
        fits = hi <= tokens.shape[1] and answers > 0
        by_range[name] = float(correct[lo:hi].sum() / answers) if fits else float("nan")
    return by_position, by_range


def evaluate_many(
    models: Mapping[Hashable, torch.nn.Module],
    tokens: torch.Tensor,
    *,
    window: int | None = None,
    task: str = "sums",
    workers: int | None = None,
) -> dict[Hashable, tuple[np.ndarray, dict[str, float]]]:
    """:func:`evaluate` for every model of ``models`` (key -> model) on the same ``tokens``,
    several at once, in threads as :func:`train_many` (the results are the same as one by one).
    Used in notebooks 12, 16 and 17."""
    if not isinstance(models, Mapping):
        raise TypeError(f"models must be a mapping key -> model, got {type(models).__name__}")
    for key, model in models.items():
        _require_model(f"models[{key!r}]", model)
    require_tensor("tokens", tokens, ndim=2, integer=True)
    task = require_choice("task", task, TASKS)
    return _in_threads(lambda m: evaluate(m, tokens, window=window, task=task), models, workers)


def _answer_hits(model, tokens: torch.Tensor, window: int | None, answers) -> tuple:
    """Per target position t: number of answers predicted right, number of answers. The rows
    go through the model ``EVAL_ROWS`` at a time: each row's logits are the same, and the
    (B, H, L, L) scores and masks of a few rows stay in the CPU's cache (a third faster)."""
    mask = None if window is None else window_mask(tokens.shape[1], window)
    hits = torch.zeros(tokens.shape[1], dtype=torch.long)  # (length,)
    for rows in tokens.split(EVAL_ROWS):  # (<= EVAL_ROWS, length)
        logits = model(rows) if mask is None else model(rows, mask=mask)
        guesses = logits[:, :-1].argmax(dim=-1)  # (rows, length - 1): guesses for x_1 ..
        hits[1:] += ((guesses == rows[:, 1:]) & answers(rows)[:, 1:]).sum(dim=0)
    return hits.double().numpy(), answers(tokens).sum(dim=0).double().numpy()


def evaluation_tokens(length: int = EVAL_LENGTH, *, task: str = "sums") -> torch.Tensor:
    """The fixed test set of ``task``, ``(NUM_TEST, length)``, drawn from generator seed
    ``TEST_SEED``, a seed no training run uses. Used in notebook 12."""
    task = require_choice("task", task, TASKS)
    length = require_int("length", length, minimum=1 if task == "sums" else 3)
    return _MAKE[task](NUM_TEST, length, torch.Generator().manual_seed(TEST_SEED))


def range_accuracies(
    model: torch.nn.Module, *, max_len_eval: int | None = None, window: int | None = None
) -> dict[str, float]:
    """Accuracy on the answers of each range of ``RANGES``, pooled over the fresh test set
    (:func:`evaluation_tokens`, ``EVAL_LENGTH`` tokens cut to ``max_len_eval``); NaN for a range
    that does not fit in ``max_len_eval`` (e.g. ``TRAIN_LENGTH`` for a learned table).
    ``window``: as in :func:`accuracy_by_position`. For one model at a time (the extra seeds of
    benchmarks/RESULTS.md); notebooks 12, 16 and 17 evaluate several at once with
    :func:`evaluate_many`.
    """
    if max_len_eval is None:
        max_len_eval = EVAL_LENGTH
    max_len_eval = require_int("max_len_eval", max_len_eval, minimum=3, maximum=EVAL_LENGTH)
    return evaluate(model, evaluation_tokens()[:, :max_len_eval], window=window)[1]


class _ClampedRotary(PositionalAttention):
    """Rotary attention whose keys more than ``max_offset`` back are scored as if exactly
    ``max_offset`` back (every key kept). See :func:`clamp_rotary_offsets`."""

    def __init__(self, rotary: RotaryPositionalAttention, max_offset: int) -> None:
        super().__init__()
        self.rotary, self.max_offset = rotary, max_offset
        self._raw: tuple[torch.Tensor, torch.Tensor] | None = None

    def rotate(self, q, k, offset):
        self._raw = (q, k)  # unrotated, for the far keys' scores in score_bias
        return self.rotary.rotate(q, k, offset)

    def score_bias(self, q, len_k, offset):
        q_raw, k_raw = self._raw
        self._raw = None
        _, k_rot = self.rotary.rotate(k_raw, k_raw, 0)  # (B, H, L_k, d_k) at their positions
        # q_i . R(j - i) k_j with j - i fixed at -max_offset: the query turned by max_offset,
        # the key not at all
        q_far = apply_rotary(
            q_raw, torch.full((q_raw.shape[-2],), self.max_offset), self.rotary.base
        )
        scale = math.sqrt(q.shape[-1])
        near = q @ k_rot.transpose(-2, -1) / scale  # (B, H, L_q, L_k): the scores as they are
        far = q_far @ k_raw.transpose(-2, -1) / scale  # the scores at offset max_offset
        i = torch.arange(offset, offset + q.shape[-2])[:, None]
        j = torch.arange(len_k)[None, :]
        return torch.where(i - j > self.max_offset, far - near, torch.zeros_like(near))


def clamp_rotary_offsets(model: DecoderOnlyTransformer, max_offset: int) -> DecoderOnlyTransformer:
    """A copy of a rotary ``model`` in which every query scores the keys more than
    ``max_offset`` tokens back as if they were exactly ``max_offset`` back: all keys stay
    visible, but no offset beyond ``max_offset`` (e.g. beyond training's ``TRAIN_LENGTH - 1``)
    reaches a score. Separates the two things a sliding window removes at once, the unseen
    offsets and the extra keys. The copy adds the difference as a score term, so the attention
    runs the readable (unfused) path; ``max_offset >= length - 1`` gives the model's own
    outputs. Used in notebook 12.
    """
    if not isinstance(model, DecoderOnlyTransformer):
        raise TypeError(f"model must be a DecoderOnlyTransformer, got {type(model).__name__}")
    max_offset = require_int("max_offset", max_offset, minimum=0)
    clamped = copy.deepcopy(model)
    for index, layer in enumerate(clamped.layers):
        rotary = layer.self_attn.position
        if not isinstance(rotary, RotaryPositionalAttention) or rotary.frequencies is not None:
            raise ValueError(
                f"model must use plain rotary attention in every layer; layer {index} has "
                f"{type(rotary).__name__}"
            )
        layer.self_attn.position = _ClampedRotary(rotary, max_offset)
    return clamped.eval()


def move_recall_key(
    tokens: torch.Tensor, generator: torch.Generator, last: int = 2 * TRAIN_LENGTH - 2
) -> torch.Tensor:
    """Recall sequences ``(num, length)`` with the key moved from position 0 to a uniformly
    random position ``1 .. last``: the key and the filler there swap places, nothing else
    changes. Every query must come after ``last`` (so the key is still before it). Used in
    notebook 12, to ask whether a model finds the key by its content or as the first token.
    """
    require_tensor("tokens", tokens, ndim=2, integer=True)
    if not isinstance(generator, torch.Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    last = require_int("last", last, minimum=1)
    query = (tokens == RECALL_QUERY).int().argmax(dim=1)  # (num,): the first query per row
    if not bool(((tokens == RECALL_QUERY).sum(dim=1) == 1).all()) or int(query.min()) <= last:
        raise ValueError(f"every row must hold one query token after position last={last}")
    rows = torch.arange(tokens.shape[0])
    place = torch.randint(1, last + 1, (tokens.shape[0],), generator=generator)  # (num,)
    moved = tokens.clone()
    moved[rows, place], moved[:, 0] = tokens[:, 0], tokens[rows, place]
    return moved
