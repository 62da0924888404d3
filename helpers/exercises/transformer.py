"""Checkers for the Transformer exercises (notebooks 09-10): LayerNorm, the label-smoothing loss
floor, the warm-up schedule, greedy decoding."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..data import BOS_ID, EOS_ID, NUM_SPECIAL, PAD_ID
from ..training import noam_lr
from ..transformer import greedy_decode
from ._core import Case, Mistake, cases_from, run_checker
from ._diagnose import Diagnosis, knob_view

__all__ = ["check_layer_norm", "check_smoothing_floor", "check_noam_lr", "check_greedy_decode"]


# ------------------------------------------------------------------------------ LayerNorm


def _layer_norm_cases() -> list[Case]:
    generator = torch.Generator().manual_seed(0)
    cases = []
    for shape, eps in [((3, 6), 0.5), ((2, 3, 4), 1e-5), ((1, 5, 8), 1e-5), ((2, 2, 16), 1e-3)]:
        x = 3.0 * torch.randn(shape, generator=generator, dtype=torch.float64) + 1.0
        gamma = 1.0 + torch.rand(shape[-1], generator=generator, dtype=torch.float64)
        beta = torch.randn(shape[-1], generator=generator, dtype=torch.float64)
        expected = F.layer_norm(x, (shape[-1],), gamma, beta, eps)
        cases.append(Case((x, gamma, beta, eps), expected, f"x of shape {shape}, eps={eps}"))
    return cases


def _unbiased_variance(x, gamma, beta, eps):
    mean = x.mean(dim=-1, keepdim=True)
    var = x.var(dim=-1, keepdim=True, unbiased=True)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


def _eps_outside_sqrt(x, gamma, beta, eps):
    mean = x.mean(dim=-1, keepdim=True)
    std = x.std(dim=-1, keepdim=True, unbiased=False)
    return gamma * (x - mean) / (std + eps) + beta


def _over_positions(x, gamma, beta, eps):
    mean = x.mean(dim=-2, keepdim=True)
    var = x.var(dim=-2, keepdim=True, unbiased=False)
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta


def _no_gain_or_bias(x, gamma, beta, eps):
    return F.layer_norm(x, (x.shape[-1],), None, None, eps)


def _layer_norm_model(
    args, var="biased", eps="inside", gain="gamma", bias="beta", axis=-1, centre=True, root=True
):
    """LayerNorm written with knobs, to describe a wrong answer by the knob it turned."""
    x, gamma, beta = (np.asarray(a, dtype=np.float64) for a in args[:3])
    e = args[3]
    axes = tuple(range(x.ndim)) if axis == "all" else axis
    mean = x.mean(axis=axes, keepdims=True) if centre else 0.0
    if var == "rms":
        v = (x**2).mean(axis=axes, keepdims=True)
    else:
        v = x.var(axis=axes, keepdims=True, ddof=1 if var == "unbiased" else 0)
    if eps == "outside":
        denominator = np.sqrt(v) + e
    else:
        denominator = (v + (e if eps == "inside" else 0.0)) ** (0.5 if root else 1.0)
    g = {"gamma": gamma, "beta": beta, "none": 1.0}[gain]
    b = {"beta": beta, "gamma": gamma, "none": 0.0}[bias]
    return (x - mean) / denominator * g + b


_LAYER_NORM_KNOBS = {
    "var": [
        ("unbiased", "the unbiased variance (divided by n - 1; LayerNorm divides by n)"),
        ("rms", "the mean of x**2 in place of the variance (RMSNorm)"),
    ],
    "eps": [
        ("outside", "eps added outside the square root"),
        ("none", "no eps"),
    ],
    "gain": [("none", "no gain gamma"), ("beta", "beta as the gain")],
    "bias": [("none", "no bias beta"), ("gamma", "gamma as the bias")],
    "axis": [
        (0, "the statistics taken over the first axis, not the last"),
        (-2, "the statistics taken over axis -2, not the last"),
        ("all", "the statistics taken over the whole tensor, not each row"),
    ],
    "centre": [(False, "the mean not subtracted")],
    "root": [(False, "a division by the variance itself, not its square root")],
}


def check_layer_norm(fn: Callable) -> bool:
    """Check ``fn(x, gamma, beta, eps)``: LayerNorm over the last dimension of ``x``
    (``(..., d_model)``), with gain ``gamma`` and bias ``beta`` of shape ``(d_model,)``.

    The exercise of notebook 09.
    """
    mistakes = [
        Mistake(
            _unbiased_variance,
            "you used the unbiased variance (divided by d_model - 1); LayerNorm divides by "
            "d_model: x.var(dim=-1, unbiased=False).",
        ),
        Mistake(
            _eps_outside_sqrt,
            "eps goes inside the square root: (x - mean) / sqrt(var + eps), not / (std + eps).",
        ),
        Mistake(
            _over_positions,
            "you normalised over the positions (dim=-2); LayerNorm normalises each "
            "position's vector over its d_model features (dim=-1).",
        ),
        Mistake(_no_gain_or_bias, "the result must be scaled by gamma and shifted by beta."),
    ]
    return run_checker(
        "check_layer_norm",
        fn,
        _layer_norm_cases(),
        mistakes,
        generic_hint="mean and variance over the last dimension, keepdim=True.",
        diagnosis=Diagnosis(
            axes=("row", "feature"), views=(knob_view(_layer_norm_model, _LAYER_NORM_KNOBS),)
        ),
    )


# ------------------------------------------------------------------------------ schedule

_NOAM_ARGS = [
    (1, 64, 100),
    (50, 64, 100),
    (100, 64, 100),
    (400, 64, 100),
    (3, 512, 4000),
    (10000, 512, 4000),
    (7, 32, 7),
]


def _no_model_width(step, d_model, warmup_steps):
    return min(step**-0.5, step * warmup_steps**-1.5)


def _max_instead_of_min(step, d_model, warmup_steps):
    return d_model**-0.5 * max(step**-0.5, step * warmup_steps**-1.5)


def _warmup_power_half(step, d_model, warmup_steps):
    return d_model**-0.5 * min(step**-0.5, step * warmup_steps**-0.5)


def _noam_model(args, width=-0.5, warm=-1.5, decay=-0.5, pick="min", offset=0):
    step, d_model, warmup = args
    s = step + offset
    branches = {
        "min": min,
        "max": max,
        "warm": lambda a, b: b,
        "decay": lambda a, b: a,
        "cut": lambda a, b: b if s < warmup else a,  # the min, when the exponents are right
    }
    return d_model**width * branches[pick](s**decay, s * warmup**warm)


_NOAM_KNOBS = {
    "width": [
        (0.5, "d_model**0.5 (it is d_model**-0.5)"),
        (0.0, "no d_model**-0.5 factor"),
        (-1.0, "d_model**-1 (it is d_model**-0.5)"),
    ],
    "warm": [
        (-1.0, "warmup_steps**-1 in the warm-up branch (it is warmup_steps**-1.5)"),
        (-0.5, "warmup_steps**-0.5 in the warm-up branch (it is warmup_steps**-1.5)"),
        (-2.0, "warmup_steps**-2 in the warm-up branch (it is warmup_steps**-1.5)"),
    ],
    "decay": [(-1.0, "step**-1 in the decay branch (it is step**-0.5)"), (0.5, "step**0.5")],
    "pick": [
        ("max", "the max of the two branches (it is the min)"),
        ("warm", "the warm-up branch only, after warmup_steps too"),
        ("decay", "the decay branch only, during the warm-up too"),
        ("cut", "the branch chosen by step < warmup_steps, not by the min"),
    ],
    "offset": [(1, "step + 1 (steps count from 1 already)"), (-1, "step - 1")],
}


def check_noam_lr(fn: Callable) -> bool:
    """Check ``fn(step, d_model, warmup_steps)``: the paper's learning rate (factor 1).

    The exercise of notebook 10.
    """
    cases = cases_from(noam_lr, _NOAM_ARGS, "step={}, d_model={}, warmup_steps={}".format)
    mistakes = [
        Mistake(_no_model_width, "the schedule is scaled by d_model**-0.5."),
        Mistake(
            _max_instead_of_min,
            "take the min of the two branches: the warm-up line is the smaller one before "
            "warmup_steps, the 1/sqrt(step) decay after.",
        ),
        Mistake(_warmup_power_half, "the warm-up branch is step * warmup_steps**-1.5."),
    ]
    return run_checker(
        "check_noam_lr",
        fn,
        cases,
        mistakes,
        generic_hint="lr = d_model**-0.5 * min(step**-0.5, step * warmup**-1.5).",
        diagnosis=Diagnosis(views=(knob_view(_noam_model, _NOAM_KNOBS),)),
    )


# ------------------------------------------------------------------------------ label smoothing

_SMOOTHING_ARGS = [(13, 0.1), (37_000, 0.1), (2, 0.5), (100, 0.3), (50, 0.9)]


def _entropy(probabilities: list[tuple[float, int]], log=math.log) -> float:
    """``-sum count * p * log(p)`` over ``(p, count)`` pairs, with ``0 log 0 = 0``."""
    return -sum(count * p * log(p) for p, count in probabilities if p > 0)


def _smoothing_floor(vocab_size: int, eps: float) -> float:
    """The smallest label-smoothed cross-entropy, in nats: the entropy of the target
    ``q = (1 - eps) one_hot + eps / vocab_size`` (PyTorch's convention)."""
    return _entropy([(1 - eps + eps / vocab_size, 1), (eps / vocab_size, vocab_size - 1)])


def _floor_over_wrong_tokens(vocab_size: int, eps: float) -> float:
    return _entropy([(1 - eps, 1), (eps / (vocab_size - 1), vocab_size - 1)])


def _floor_right_token_only(vocab_size: int, eps: float) -> float:
    return -math.log(1 - eps + eps / vocab_size)


def _floor_in_bits(vocab_size: int, eps: float) -> float:
    return _entropy(
        [(1 - eps + eps / vocab_size, 1), (eps / vocab_size, vocab_size - 1)], log=math.log2
    )


def _floor_without_right_share(vocab_size: int, eps: float) -> float:
    return _entropy([(1 - eps, 1), (eps / vocab_size, vocab_size - 1)])


def _floor_model(args, log="e", count="V-1", true_p="paper", others="V", sign=1.0):
    vocab_size, eps = args
    logs = {"e": math.log, "2": math.log2, "10": math.log10}[log]
    p_true = 1 - eps + eps / vocab_size if true_p == "paper" else 1 - eps
    p_other = eps / vocab_size if others == "V" else eps / (vocab_size - 1)
    n = {"V-1": vocab_size - 1, "V": vocab_size, "0": 0}[count]
    return sign * _entropy([(p_true, 1), (p_other, n)], log=logs)


_FLOOR_KNOBS = {
    "log": [("2", "log base 2 (bits; the loss is in nats)"), ("10", "log base 10 (it is ln)")],
    "count": [
        ("V", "vocab_size wrong tokens (there are vocab_size - 1)"),
        ("0", "the right token's term only, no wrong tokens"),
    ],
    "true_p": [("1-eps", "q(y) = 1 - eps for the right token (it is 1 - eps + eps / vocab_size)")],
    "others": [("V-1", "q(v) = eps / (vocab_size - 1) for a wrong token (it is eps / vocab_size)")],
    "sign": [(-1.0, "the opposite sign (an entropy is >= 0)")],
}


def check_smoothing_floor(fn: Callable) -> bool:
    """Check ``fn(vocab_size, eps)``: the loss floor of label smoothing ``eps`` over
    ``vocab_size`` tokens, in nats, as ``helpers.training.sequence_loss`` smooths.

    Used in notebook 09.
    """
    cases = [
        Case(args, _smoothing_floor(*args), "vocab_size={}, eps={}".format(*args))
        for args in _SMOOTHING_ARGS
    ]
    mistakes = [
        Mistake(
            _floor_over_wrong_tokens,
            "you spread eps over the vocab_size - 1 wrong tokens; sequence_loss (PyTorch's "
            "label_smoothing) spreads it over all vocab_size tokens, the right one included.",
        ),
        Mistake(
            _floor_right_token_only,
            "you returned -log q(y), the right token's term alone; the floor is the entropy of "
            "the whole target, -sum_v q(v) log q(v), wrong tokens included.",
        ),
        Mistake(_floor_in_bits, "the loss is in nats (natural log), not bits (log2)."),
        Mistake(
            _floor_without_right_share,
            "the right token also gets its share of the spread mass: q(y) = 1 - eps + "
            "eps / vocab_size, not 1 - eps (your q does not sum to 1).",
        ),
    ]
    return run_checker(
        "check_smoothing_floor",
        fn,
        cases,
        mistakes,
        generic_hint="the floor is H(q) with q(y) = 1 - eps + eps/V and q(v) = eps/V otherwise.",
        diagnosis=Diagnosis(views=(knob_view(_floor_model, _FLOOR_KNOBS),)),
    )


# ------------------------------------------------------------------------------ greedy decoding


class ToyCopyModel(nn.Module):
    """A stand-in for a trained copy model, exact and instant: its next token after a prefix of
    length ``t + 1`` is ``src[t] + shift`` while ``t`` is inside the source, then EOS (with a
    ``shift``, a decoder that copies the source without asking the model fails). Like a real model
    trained with teacher forcing it only knows prefixes that start with BOS: after any other
    first token it predicts the first symbol forever. ``encode``/``decode`` as
    ``helpers.transformer.Transformer``; ``forward(src, tgt)`` also works."""

    vocab_size = 16

    def __init__(self, shift: int = 0) -> None:
        super().__init__()
        self.shift = shift

    def encode(self, src: torch.Tensor, src_mask: torch.Tensor | None = None) -> torch.Tensor:
        return src[..., None].float()  # (B, S, 1): the memory is the source itself

    def decode(self, tgt, memory, src_mask=None, tgt_mask=None) -> torch.Tensor:
        src = memory[..., 0].long()  # (B, S)
        lengths = (src != PAD_ID).sum(dim=1, keepdim=True)  # (B, 1)
        t = torch.arange(tgt.shape[1])  # (T,): position of each prefix end
        next_token = src.gather(1, t.clamp(max=src.shape[1] - 1).expand(len(src), -1))
        next_token = torch.where(t < lengths, next_token + self.shift, EOS_ID)  # (B, T)
        lost = tgt[:, :1] != BOS_ID  # (B, 1): a prefix the model was never trained on
        next_token = torch.where(lost, NUM_SPECIAL, next_token)
        return F.one_hot(next_token, self.vocab_size).float()  # (B, T, vocab) "logits"

    def forward(self, src, tgt, src_mask=None, tgt_mask=None) -> torch.Tensor:
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)


def _greedy_cases() -> list[Case]:
    # (source, room to spare after S + 1 tokens, shift of the toy model's answer): the first
    # case cuts the output at max_len, the last needs the model (copying the source fails).
    settings = [
        (torch.tensor([[5, 9, 4, 7]]), -2, 0),
        (torch.tensor([[5, 9, 4, 7, 8, 6], [12, 3, 0, 0, 0, 0], [4, 4, 11, 0, 0, 0]]), 0, 0),
        (torch.tensor([[6, 7, 8], [9, 10, 0]]), 2, 1),
    ]
    cases = []
    for src, spare, shift in settings:
        model = ToyCopyModel(shift)
        max_len = src.shape[1] + 1 + spare
        label = f"{len(src)} source(s) of length {src.shape[1]}, max_len={max_len}"
        if shift:
            label += ", a model that adds 1 to each token"
        expected = greedy_decode(model, src, max_len, BOS_ID, EOS_ID)
        cases.append(Case((model, src, max_len, BOS_ID, EOS_ID), expected, label))
    return cases


def _starts_from_pad(model, src, max_len, bos_id, eos_id):
    return greedy_decode(model, src, max_len, PAD_ID, eos_id)


def _no_padding_after_eos(model, src, max_len, bos_id, eos_id):
    ys = torch.full((len(src), 1), bos_id)
    for _ in range(max_len):
        next_token = model.decode(ys, model.encode(src))[:, -1].argmax(dim=-1)
        ys = torch.cat([ys, next_token[:, None]], dim=1)
        if (ys == eos_id).any(dim=1).all():
            break
    return ys[:, 1:]


def _first_position_logits(model, src, max_len, bos_id, eos_id):
    ys = torch.full((len(src), 1), bos_id)
    finished = torch.zeros(len(src), dtype=torch.bool)
    for _ in range(max_len):
        next_token = model.decode(ys, model.encode(src))[:, 0].argmax(dim=-1)
        next_token = next_token.masked_fill(finished, PAD_ID)
        ys = torch.cat([ys, next_token[:, None]], dim=1)
        finished |= next_token == eos_id
        if finished.all():
            break
    return ys[:, 1:]


def check_greedy_decode(fn: Callable) -> bool:
    """Check ``fn(model, src, max_len, bos_id, eos_id)`` against ``helpers.transformer.
    greedy_decode``: ids ``(batch, <= max_len)`` without BOS, EOS kept, pad after it.

    The exercise of notebook 10.
    """
    mistakes = [
        Mistake(
            _starts_from_pad,
            "the decoder must start from bos_id, the token it was trained to start from; "
            "starting from the pad id (0) gives a prefix the model has never seen.",
        ),
        Mistake(
            _no_padding_after_eos,
            "once a row has produced EOS, fill the rest of that row with the pad id (0) "
            "instead of decoding on.",
        ),
        Mistake(
            _first_position_logits,
            "the next token comes from the logits of the LAST position, logits[:, -1].",
        ),
    ]
    return run_checker(
        "check_greedy_decode",
        fn,
        _greedy_cases(),
        mistakes,
        generic_hint="start from a column of bos_id, append argmax of "
        "logits[:, -1] each step, stop when every row has an EOS, and drop the "
        "BOS column before returning.",
        diagnosis=Diagnosis(axes=("sequence", "position")),
    )
