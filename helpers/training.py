"""A small, readable training loop for sequence-to-sequence Transformers, and its metrics.

One training step, with teacher forcing (the decoder reads the true previous tokens)::

    tgt = [BOS, y_1, ..., y_n, EOS, PAD...]
    decoder input  tgt[:, :-1] = [BOS, y_1, ..., y_n, ...]
    labels         tgt[:, 1:]  = [y_1, ..., y_n, EOS, ...]      (PAD labels are ignored)

The optimiser and schedule are the paper's (section 5.3): Adam with betas (0.9, 0.98),
eps 1e-9, and the learning rate ``d_model**-0.5 * min(step**-0.5, step * warmup**-1.5)``
(times a ``factor``): a linear warm-up, then a decay as ``1 / sqrt(step)``. That decay never
gets near zero, so a short run can end while the model still jumps around a good solution;
an optional linear cool-down over the last ``cooldown_steps`` steps lets it settle.
"""

from __future__ import annotations

import inspect
from collections.abc import Iterable
from dataclasses import dataclass, field

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import (
    require_bool,
    require_int,
    require_positive_float,
    require_probability,
    require_tensor,
)
from .attention import MultiHeadAttention, padding_mask
from .transformer import greedy_decode

__all__ = [
    "init_attention_like_torch",
    "noam_lr",
    "cooldown_factor",
    "noam_scheduler",
    "sequence_loss",
    "token_accuracy",
    "exact_match",
    "TrainingHistory",
    "train_step",
    "train",
    "evaluate",
]

# A progress bar whose text holds no elapsed time or speed: a re-run prints the same thing.
BAR_FORMAT = "{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} steps"


@torch.no_grad()
def init_attention_like_torch(model: nn.Module) -> nn.Module:
    """Re-draw every :class:`~helpers.attention.MultiHeadAttention` of ``model`` the way
    ``torch.nn.MultiheadAttention`` draws its own, in place; returns ``model``.

    PyTorch keeps ``W_Q``, ``W_K``, ``W_V`` in one ``(3 d_model, d_model)`` matrix and draws it
    Xavier-uniform as a whole, so each of the three gets the bound ``sqrt(6 / (4 d_model))``, not
    the ``sqrt(6 / (2 d_model))`` of a separate ``(d_model, d_model)`` matrix; and its four
    biases start at zero, not at ``nn.Linear``'s uniform ``+-1/sqrt(d_model)``. ``W_O`` and every
    other parameter are left as they are. The attention modules are visited in
    ``model.modules()`` order, drawing from PyTorch's global generator (seed it first).

    Used in notebook 10, where it makes the course's model learn reversal as reliably as
    ``torch.nn.Transformer`` (``benchmarks/RESULTS.md``).
    """
    if not isinstance(model, nn.Module):
        raise TypeError(f"model must be a torch.nn.Module, got {type(model).__name__}")
    attentions = [m for m in model.modules() if isinstance(m, MultiHeadAttention)]
    if not attentions:
        raise ValueError(
            f"model must contain at least one helpers.attention.MultiHeadAttention, got "
            f"{type(model).__name__} with none"
        )
    for attention in attentions:
        d_model = attention.d_model
        like = attention.q_proj.weight
        in_proj = torch.empty(3 * d_model, d_model, dtype=like.dtype, device=like.device)
        nn.init.xavier_uniform_(in_proj)
        projections = (attention.q_proj, attention.k_proj, attention.v_proj)
        for projection, weight in zip(projections, in_proj.chunk(3), strict=True):
            projection.weight.copy_(weight)  # (d_model, d_model) each
        for projection in (*projections, attention.out_proj):
            if projection.bias is not None:
                projection.bias.zero_()
    return model


def noam_lr(step: int, d_model: int, warmup_steps: int, factor: float = 1.0) -> float:
    """The paper's learning rate at ``step`` (counted from 1):
    ``factor * d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)``.

    It grows linearly for ``warmup_steps`` steps, peaks at
    ``factor * (d_model * warmup_steps)**-0.5``, then decays as ``1 / sqrt(step)``.

    Derived in notebook 10.
    """
    step = require_int("step", step, minimum=1)
    d_model = require_int("d_model", d_model, minimum=1)
    warmup_steps = require_int("warmup_steps", warmup_steps, minimum=1)
    factor = require_positive_float("factor", factor)
    return factor * d_model**-0.5 * min(step**-0.5, step * warmup_steps**-1.5)


def cooldown_factor(step: int, num_steps: int, cooldown_steps: int) -> float:
    """Multiplier of a linear cool-down over the last ``cooldown_steps`` of ``num_steps`` steps.

    1 before the cool-down, then ``(num_steps - step + 1) / cooldown_steps``: a straight line
    that reaches ``1 / cooldown_steps`` at the last step. ``cooldown_steps = 0``: always 1.

    Used in notebook 10.
    """
    num_steps = require_int("num_steps", num_steps, minimum=1)
    step = require_int("step", step, minimum=1)
    if step > num_steps:
        raise ValueError(f"step must be <= num_steps={num_steps}, got {step}")
    cooldown_steps = require_int("cooldown_steps", cooldown_steps, minimum=0)
    if cooldown_steps > num_steps:
        raise ValueError(f"cooldown_steps must be <= num_steps={num_steps}, got {cooldown_steps}")
    if cooldown_steps == 0:
        return 1.0
    return min(1.0, (num_steps - step + 1) / cooldown_steps)


def noam_scheduler(
    optimizer: torch.optim.Optimizer,
    d_model: int,
    warmup_steps: int,
    factor: float = 1.0,
    num_steps: int | None = None,
    cooldown_steps: int = 0,
) -> torch.optim.lr_scheduler.LambdaLR:
    """A scheduler that sets the learning rate to :func:`noam_lr` before every step, times
    :func:`cooldown_factor` when ``cooldown_steps > 0`` (which needs ``num_steps``).

    The optimizer's own ``lr`` must be 1.0 (``LambdaLR`` multiplies it by the schedule).
    ``LambdaLR`` counts from 0, the paper from 1: the lambda shifts by one.

    Used by :func:`train` (notebooks 10, 12 and 15).
    """
    # d_model, warmup_steps, factor: checked when LambdaLR below evaluates the first step
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}"
        )
    if cooldown_steps and num_steps is None:
        raise ValueError(f"cooldown_steps={cooldown_steps} needs num_steps, got None")
    if num_steps is not None:
        cooldown_factor(1, num_steps, cooldown_steps)
    for group in optimizer.param_groups:
        if group["lr"] != 1.0:
            raise ValueError(f"optimizer lr must be 1.0 for noam_scheduler, got {group['lr']}")

    def schedule(index: int) -> float:
        step = index + 1
        lr = noam_lr(step, d_model, warmup_steps, factor)
        if cooldown_steps:  # the scheduler also looks one step past the end: clamp it
            lr *= cooldown_factor(min(step, num_steps), num_steps, cooldown_steps)
        return lr

    return torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)


def sequence_loss(
    logits: torch.Tensor,
    targets: torch.Tensor,
    pad_id: int = 0,
    label_smoothing: float = 0.0,
) -> torch.Tensor:
    """Mean cross-entropy over the non-pad target tokens.

    ``logits (B, T, vocab)``, ``targets (B, T)``. With ``label_smoothing = eps`` the target
    distribution puts ``1 - eps`` on the right token and spreads ``eps`` uniformly over the
    vocabulary (PyTorch's convention; the paper uses eps = 0.1). Used in notebook 10.
    """
    require_tensor("logits", logits, ndim=3, floating=True)
    require_tensor("targets", targets, ndim=2, integer=True)
    if logits.shape[:2] != targets.shape:
        raise ValueError(
            f"logits (B, T, vocab) and targets (B, T) disagree: {tuple(logits.shape)} and "
            f"{tuple(targets.shape)}"
        )
    pad_id = require_int("pad_id", pad_id)
    label_smoothing = require_probability("label_smoothing", label_smoothing)
    counted = targets != pad_id
    if not counted.any():
        raise ValueError(f"targets must hold at least one token other than pad_id={pad_id}")
    if targets[counted].min() < 0 or targets[counted].max() >= logits.shape[-1]:
        raise ValueError(
            f"targets must be ids in [0, vocab) = [0, {logits.shape[-1]}) or pad_id, got ids "
            f"from {targets[counted].min().item()} to {targets[counted].max().item()}"
        )
    return F.cross_entropy(
        logits.flatten(0, 1),  # (B * T, vocab)
        targets.flatten(),  # (B * T,)
        ignore_index=pad_id,
        label_smoothing=label_smoothing,
    )


def _pad_to(predictions: torch.Tensor, length: int, pad_id: int) -> torch.Tensor:
    """Cut or right-pad ``predictions (B, L)`` to ``(B, length)``."""
    predictions = predictions[:, :length]
    missing = length - predictions.shape[1]
    return F.pad(predictions, (0, missing), value=pad_id) if missing else predictions


def _compare(predictions, targets, pad_id) -> tuple[torch.Tensor, torch.Tensor]:
    require_tensor("predictions", predictions, ndim=2, integer=True)
    require_tensor("targets", targets, ndim=2, integer=True)
    if predictions.shape[0] != targets.shape[0]:
        raise ValueError(
            f"predictions and targets must have the same batch size, got "
            f"{predictions.shape[0]} and {targets.shape[0]}"
        )
    pad_id = require_int("pad_id", pad_id)
    if not (targets != pad_id).any():
        raise ValueError(f"targets must hold at least one token other than pad_id={pad_id}")
    predictions = _pad_to(predictions, targets.shape[1], pad_id)
    return predictions == targets, targets != pad_id  # (B, T) each


def token_accuracy(predictions: torch.Tensor, targets: torch.Tensor, pad_id: int = 0) -> float:
    """Fraction of non-pad target tokens predicted correctly.

    ``predictions (B, L)`` are cut or padded with ``pad_id`` to the length of ``targets (B, T)``.

    Used in notebooks 10 and 13.
    """
    correct, counted = _compare(predictions, targets, pad_id)
    return (correct & counted).sum().item() / max(counted.sum().item(), 1)


def exact_match(predictions: torch.Tensor, targets: torch.Tensor, pad_id: int = 0) -> float:
    """Fraction of sequences whose every non-pad target token (EOS included) is right.

    A single wrong token makes the whole sequence wrong, so this is far stricter than
    :func:`token_accuracy`: 95% of tokens right, independently, is 0.95**17 = 42% of sequences.

    Used in notebooks 10 and 13.
    """
    correct, counted = _compare(predictions, targets, pad_id)
    return (correct | ~counted).all(dim=1).float().mean().item()


@dataclass
class TrainingHistory:
    """What :func:`train` records at every step: the loss and the learning rate used.

    Returned by :func:`train` in notebooks 10, 12 and 15.
    """

    losses: list[float] = field(default_factory=list)
    learning_rates: list[float] = field(default_factory=list)


def _mask_or_none(tokens: torch.Tensor, pad_id: int) -> torch.Tensor | None:
    """A padding mask ``(B, 1, 1, L)``, or None when there is no padding (nothing to hide)."""
    return padding_mask(tokens, pad_id) if (tokens == pad_id).any() else None


def _require_batch(src: torch.Tensor, tgt: torch.Tensor) -> None:
    """A batch is ``src (B, S)`` and ``tgt (B, T)`` token ids, T >= 2 (BOS and one target)."""
    require_tensor("src", src, ndim=2, integer=True)
    require_tensor("tgt", tgt, ndim=2, integer=True)
    if tgt.shape[0] != src.shape[0] or tgt.shape[1] < 2:
        raise ValueError(
            f"tgt must be (batch, T) with the batch size of src and T >= 2 (BOS and at least one "
            f"token to predict), got src {tuple(src.shape)} and tgt {tuple(tgt.shape)}"
        )


def train_step(
    model: nn.Module,
    src: torch.Tensor,
    tgt: torch.Tensor,
    optimizer: torch.optim.Optimizer,
    pad_id: int = 0,
    label_smoothing: float = 0.0,
    clip_norm: float | None = 1.0,
) -> float:
    """One teacher-forced step on a batch ``src (B, S)``, ``tgt (B, T) = [BOS, ..., EOS, PAD...]``;
    returns the loss. Gradients are clipped to a global norm of ``clip_norm`` (None: no clip).

    Used in notebook 10.
    """
    _require_batch(src, tgt)
    if not isinstance(optimizer, torch.optim.Optimizer):
        raise TypeError(
            f"optimizer must be a torch.optim.Optimizer, got {type(optimizer).__name__}"
        )
    if clip_norm is not None:
        clip_norm = require_positive_float("clip_norm", clip_norm)
    decoder_input, labels = tgt[:, :-1], tgt[:, 1:]  # (B, T-1) each, shifted by one
    logits = model(
        src, decoder_input, _mask_or_none(src, pad_id), _mask_or_none(decoder_input, pad_id)
    )  # (B, T-1, vocab)
    loss = sequence_loss(logits, labels, pad_id, label_smoothing)
    optimizer.zero_grad(set_to_none=True)
    loss.backward()
    if clip_norm is not None:
        nn.utils.clip_grad_norm_(model.parameters(), clip_norm)
    optimizer.step()
    return loss.item()


def train(
    model: nn.Module,
    batches: Iterable[tuple[torch.Tensor, torch.Tensor]],
    num_steps: int,
    warmup_steps: int = 100,
    lr_factor: float = 1.0,
    cooldown_steps: int = 0,
    label_smoothing: float = 0.0,
    clip_norm: float | None = 1.0,
    pad_id: int = 0,
    progress: bool = True,
    desc: str = "training",
) -> TrainingHistory:
    """Train ``model`` for ``num_steps`` steps on batches drawn from ``batches``.

    Adam (betas 0.9, 0.98, eps 1e-9) with the warm-up schedule :func:`noam_lr`
    (``d_model`` read from ``model.d_model``) and an optional linear cool-down over the last
    ``cooldown_steps`` steps, cross-entropy ignoring ``pad_id`` with optional label smoothing,
    gradient clipping. ``batches`` yields ``(src, tgt)`` pairs, e.g.
    ``helpers.data.batch_stream``. ``progress`` shows a progress bar (a widget in Jupyter).
    Returns the per-step losses and learning rates; the model is left in training mode.

    Used in notebooks 03, 09, 10, 12, 13 and 15.
    """
    # num_steps: checked by noam_scheduler below, which needs it for the cool-down
    d_model = require_int("model.d_model", getattr(model, "d_model", None), minimum=1)
    lr_factor = require_positive_float("lr_factor", lr_factor)  # named as the caller wrote it
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = noam_scheduler(
        optimizer, d_model, warmup_steps, lr_factor, num_steps, cooldown_steps
    )
    label_smoothing = require_probability("label_smoothing", label_smoothing)
    if clip_norm is not None:
        clip_norm = require_positive_float("clip_norm", clip_norm)
    require_bool("progress", progress)

    from tqdm.auto import tqdm  # imported here: only the training loop needs it

    if not isinstance(batches, Iterable):
        raise TypeError(f"batches must be an iterable of (src, tgt), got {type(batches).__name__}")
    if isinstance(batches, (tuple, list)) and all(isinstance(b, torch.Tensor) for b in batches):
        raise TypeError(
            "batches must be an iterable of (src, tgt) pairs, got one pair of tensors; pass a "
            "stream such as helpers.data.batch_stream(...) or itertools.repeat((src, tgt))"
        )
    batches = iter(batches)
    history = TrainingHistory()
    model.train()
    with tqdm(total=num_steps, desc=desc, bar_format=BAR_FORMAT, disable=not progress) as bar:
        for step in range(num_steps):
            batch = next(batches, None)
            if batch is None:
                raise ValueError(
                    f"batches ran out after {step} batches, but num_steps={num_steps}; pass an "
                    "endless stream (helpers.data.batch_stream) or fewer steps"
                )
            src, tgt = batch
            history.learning_rates.append(scheduler.get_last_lr()[0])
            loss = train_step(model, src, tgt, optimizer, pad_id, label_smoothing, clip_norm)
            scheduler.step()
            history.losses.append(loss)
            bar.update()
    return history


@torch.no_grad()
def evaluate(
    model: nn.Module,
    src: torch.Tensor,
    tgt: torch.Tensor,
    bos_id: int = 1,
    eos_id: int = 2,
    pad_id: int = 0,
) -> dict[str, float]:
    """Greedy-decode ``src (N, S)`` and score against ``tgt (N, T) = [BOS, ..., EOS, PAD...]``.

    Returns ``{"token_accuracy": ..., "exact_match": ...}``: the model must produce every target
    token and the EOS by itself, one token at a time, starting from BOS.

    Used in notebooks 10 and 13.
    """
    _require_batch(src, tgt)
    labels = tgt[:, 1:]  # (N, T-1): what the decoder must produce, EOS included
    src_mask = _mask_or_none(src, pad_id)
    # a key/value cache when the model's decoder takes one: the same tokens, decoded faster
    use_cache = "cache" in inspect.signature(model.decode).parameters
    predictions = greedy_decode(
        model, src, labels.shape[1], bos_id, eos_id, src_mask, pad_id, use_cache
    )
    return {
        "token_accuracy": token_accuracy(predictions, labels, pad_id),
        "exact_match": exact_match(predictions, labels, pad_id),
    }
