"""Checker for the exercise of notebook 12 (length extrapolation): next-token accuracy by
position."""

from __future__ import annotations

from collections.abc import Callable

import torch

from ._core import Case, Mistake, run_checker
from ._diagnose import Diagnosis

__all__ = ["check_accuracy_by_position"]


# --- next-token accuracy by position (notebook 12) -----------------------------------------------


def _accuracy_cases() -> list[Case]:
    generator = torch.Generator().manual_seed(12)
    cases = []
    for num, length, vocab in [(5, 6, 5), (16, 12, 16), (3, 40, 7)]:
        tokens = torch.randint(0, vocab, (num, length), generator=generator)
        # A decent "model": logits favour the true next token, with some random noise.
        logits = torch.randn(num, length, vocab, generator=generator, dtype=torch.float64)
        logits[:, :-1] += 1.5 * torch.nn.functional.one_hot(tokens[:, 1:], vocab)
        cases.append(
            Case(
                (logits, tokens),
                _accuracy_by_position(logits, tokens),
                f"logits of shape {(num, length, vocab)}",
            )
        )
    return cases


def _accuracy_by_position(logits: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """Reference: accuracy of predicting ``tokens[:, t]`` from ``logits[:, t - 1]``, t >= 2."""
    predictions = logits[:, 1:-1].argmax(dim=-1)  # guesses for x_2 .. x_{length-1}
    return (predictions == tokens[:, 2:]).double().mean(dim=0)  # (length - 2,)


def _hits(logits: torch.Tensor, tokens: torch.Tensor, guess: slice, target: slice) -> torch.Tensor:
    """(num, positions): does the argmax of ``logits[:, guess]`` equal ``tokens[:, target]``?"""
    return (logits[:, guess].argmax(dim=-1) == tokens[:, target]).double()


# Wrong answers a learner writes, each named by what its output gets wrong. The checker names a
# mistake only when the learner's output equals that mistake's output on the failing case.
def _not_shifted(logits, tokens):  # output at t compared with token t
    return _hits(logits, tokens, slice(2, None), slice(2, None)).mean(dim=0)


def _own_input_token(logits, tokens):  # output at t compared with token t, for t = 1 .. L-2
    return _hits(logits, tokens, slice(1, -1), slice(1, -1)).mean(dim=0)


def _shifted_twice(logits, tokens):  # output at t - 2 compared with token t
    return _hits(logits, tokens, slice(None, -2), slice(2, None)).mean(dim=0)


def _previous_token(logits, tokens):  # output at t + 1 compared with token t
    return _hits(logits, tokens, slice(2, None), slice(1, -1)).mean(dim=0)


def _from_t_one(logits, tokens):  # right alignment, but targets from t = 1
    return _hits(logits, tokens, slice(None, -1), slice(1, None)).mean(dim=0)


def _over_positions(logits, tokens):  # averaged over the positions, one number per sequence
    return _hits(logits, tokens, slice(1, -1), slice(2, None)).mean(dim=1)


def _not_averaged(logits, tokens):  # hits per sequence and position
    return _hits(logits, tokens, slice(1, -1), slice(2, None))


def _summed(logits, tokens):  # counts instead of shares
    return _hits(logits, tokens, slice(1, -1), slice(2, None)).sum(dim=0)


def _probability_of_truth(logits, tokens):  # the probability given to the true token
    probabilities = torch.softmax(logits[:, 1:-1], dim=-1)
    return probabilities.gather(-1, tokens[:, 2:, None]).squeeze(-1).mean(dim=0)


_ALIGNMENT = "the guess for tokens[:, t] sits at logits[:, t - 1]: compare logits[:, 1:-1] "
_ALIGNMENT += "with tokens[:, 2:]."


def check_accuracy_by_position(fn: Callable[[torch.Tensor, torch.Tensor], object]) -> bool:
    """Check ``fn(logits, tokens)`` -> next-token accuracy for targets ``t = 2 .. length - 1``.

    ``logits (num, length, vocab)`` are a causal model's outputs, ``logits[:, t]`` its guess for
    ``tokens[:, t + 1]``; the result has shape ``(length - 2,)``, averaged over sequences.

    The exercise of notebook 12.
    """
    mistakes = [
        Mistake(
            _not_shifted,
            "you compared logits[:, t] with tokens[:, t]: a causal model's output at t is its "
            "guess for the NEXT token, so compare logits[:, t - 1] with tokens[:, t].",
        ),
        Mistake(
            _own_input_token,
            "you compared each output with the token it READ (logits[:, 1:-1] with "
            "tokens[:, 1:-1]); the output at t guesses the NEXT token: " + _ALIGNMENT,
        ),
        Mistake(_shifted_twice, "the predictions are shifted by two: " + _ALIGNMENT),
        Mistake(
            _previous_token,
            "you compared the output at t + 1 with token t, the output after the token "
            "instead of before it: " + _ALIGNMENT,
        ),
        Mistake(
            _from_t_one,
            "the alignment is right, but the targets start at t = 1: the result covers "
            "t = 2 .. length - 1 (drop the first one).",
        ),
        Mistake(
            _over_positions,
            "you averaged over the positions (dim 1), giving one number per sequence: "
            "average over the sequences (dim 0) so each position keeps its accuracy.",
        ),
        Mistake(
            _not_averaged,
            "you returned the hit of every sequence: average over the sequences (dim 0).",
        ),
        Mistake(
            _summed,
            "you counted the hits: divide by the number of sequences (take the mean over "
            "dim 0), so each entry is a share between 0 and 1.",
        ),
        Mistake(
            _probability_of_truth,
            "you averaged the probability of the true token: accuracy counts whether the "
            "argmax (the model's guess) equals the token.",
        ),
    ]
    return run_checker(
        "check_accuracy_by_position",
        fn,
        _accuracy_cases(),
        mistakes,
        generic_hint="for each t = 2 .. length - 1, take the argmax of logits[:, t - 1] over "
        "the vocabulary, compare it with tokens[:, t], and average over the sequences.",
        diagnosis=Diagnosis(axes=("position",)),
    )
