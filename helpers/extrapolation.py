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
"""

from __future__ import annotations

import numpy as np
import torch

from ._checks import require_choice, require_int, require_tensor
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
    "make_task",
    "answer_mask",
    "build_model",
    "learning_rate",
    "train_on_task",
    "window_mask",
    "accuracy_by_position",
    "evaluation_tokens",
    "range_accuracies",
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
_TRAIN_SEED_OFFSET = 1000  # training data for seed s come from generator seed 1000 + s


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


def build_model(scheme: str, max_len: int = EVAL_LENGTH) -> DecoderOnlyTransformer:
    """A lesson-12 model (``MODEL_SIZE``, ``VOCAB``) with positional scheme ``scheme``.

    A learned table gets ``TRAIN_LENGTH`` rows whatever ``max_len`` says: training fills no
    more. Initialised from PyTorch's global generator (seed it first). Used in notebook 12.
    """
    scheme = require_choice("scheme", scheme, SCHEMES)
    max_len = require_int("max_len", max_len, minimum=TRAIN_LENGTH)
    rows = TRAIN_LENGTH if scheme == "learned" else max_len
    return DecoderOnlyTransformer(VOCAB, **MODEL_SIZE, max_len=rows, positional=scheme)


def learning_rate(step: int) -> float:
    """The recipe's schedule: linear warm-up over ``WARMUP`` steps to ``PEAK_LR``, then a linear
    decay to 0 at ``STEPS``. Used in notebook 12."""
    step = require_int("step", step, minimum=0, maximum=STEPS - 1)
    return PEAK_LR * min((step + 1) / WARMUP, (STEPS - step) / (STEPS - WARMUP))


def train_on_task(model: torch.nn.Module, seed: int) -> torch.nn.Module:
    """Lesson 12's recipe: train ``model`` in place on the task and return it in eval mode.

    Adam (fused), ``STEPS`` steps of ``BATCH`` fresh sequences of ``TRAIN_LENGTH`` tokens
    (drawn from generator seed ``1000 + seed``), the :func:`learning_rate` schedule, and a
    cross-entropy loss on the answer tokens only. Deterministic: the same model and seed give
    the same weights. The model must map ``(B, T)`` tokens to ``(B, T, VOCAB)`` logits.
    Used in notebooks 12, 16 and 17.
    """
    if not isinstance(model, torch.nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    seed = require_int("seed", seed, minimum=0, maximum=2**32 - 1 - _TRAIN_SEED_OFFSET)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=PEAK_LR, fused=True)
    generator = torch.Generator().manual_seed(_TRAIN_SEED_OFFSET + seed)
    data = make_task(STEPS * BATCH, TRAIN_LENGTH, generator)  # (STEPS * BATCH, L)
    for step, x in enumerate(data.split(BATCH)):  # x: (BATCH, L)
        for group in optimizer.param_groups:
            group["lr"] = learning_rate(step)
        scored = answer_mask(x)[:, 1:]  # (BATCH, L - 1): targets x_1 .. x_{L-1} that count
        logits = model(x)[:, :-1]  # (BATCH, L - 1, VOCAB): guesses for x_1 .. x_{L-1}
        loss = torch.nn.functional.cross_entropy(logits[scored], x[:, 1:][scored])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    return model.eval()


def window_mask(length: int, window: int) -> torch.Tensor:
    """Boolean ``(length, length)``: query i may see keys i - window + 1 .. i (a causal sliding
    window of ``window`` tokens, itself included). Used in notebook 12 (its baseline)."""
    length = require_int("length", length, minimum=1)
    window = require_int("window", window, minimum=1)
    i = torch.arange(length)[:, None]
    j = torch.arange(length)[None, :]
    return (j <= i) & (j > i - window)


@torch.no_grad()
def accuracy_by_position(
    model: torch.nn.Module, tokens: torch.Tensor, *, window: int | None = None
) -> np.ndarray:
    """Accuracy of the answers at each target position: ``(length,)`` float64, entry t the
    share of sequences with an answer at t that the model predicts right from the true prefix
    ``tokens[:, :t]``; NaN where no sequence has an answer at t.

    ``window``: if given, every query sees only its last ``window`` tokens (the model must
    accept a ``mask`` argument). Used in notebooks 12, 16 and 17.
    """
    require_tensor("tokens", tokens, ndim=2, integer=True)
    correct, counts = _answer_hits(model, tokens, window)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(counts > 0, correct / np.maximum(counts, 1), np.nan)


def _answer_hits(model, tokens: torch.Tensor, window: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Per target position t: number of answers predicted right, number of answers."""
    if window is None:
        logits = model(tokens)
    else:
        logits = model(tokens, mask=window_mask(tokens.shape[1], window))
    guesses = logits[:, :-1].argmax(dim=-1)  # (num, length - 1): guesses for x_1 ..
    scored = answer_mask(tokens)  # (num, length)
    hits = torch.zeros_like(scored)
    hits[:, 1:] = (guesses == tokens[:, 1:]) & scored[:, 1:]
    return hits.sum(dim=0).double().numpy(), scored.sum(dim=0).double().numpy()


def evaluation_tokens(length: int = EVAL_LENGTH) -> torch.Tensor:
    """The fixed test set, ``(NUM_TEST, length)``, drawn from generator seed ``TEST_SEED``,
    a seed no training run uses. Used in notebook 12."""
    length = require_int("length", length, minimum=1)
    return make_task(NUM_TEST, length, torch.Generator().manual_seed(TEST_SEED))


def range_accuracies(
    model: torch.nn.Module, *, max_len_eval: int | None = None, window: int | None = None
) -> dict[str, float]:
    """Accuracy on the answers of each range of ``RANGES``, pooled over the fresh test set
    (:func:`evaluation_tokens`, ``EVAL_LENGTH`` tokens cut to ``max_len_eval``); NaN for a range
    that does not fit in ``max_len_eval`` (e.g. ``TRAIN_LENGTH`` for a learned table).
    ``window``: as in :func:`accuracy_by_position`. Used in notebooks 12, 16 and 17.
    """
    if max_len_eval is None:
        max_len_eval = EVAL_LENGTH
    max_len_eval = require_int("max_len_eval", max_len_eval, minimum=3, maximum=EVAL_LENGTH)
    correct, counts = _answer_hits(model, evaluation_tokens()[:, :max_len_eval], window)
    result = {}
    for name, (lo, hi) in RANGES.items():
        fits = hi <= max_len_eval
        result[name] = float(correct[lo:hi].sum() / counts[lo:hi].sum()) if fits else float("nan")
    return result
