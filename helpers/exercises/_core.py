"""The machinery every exercise checker shares.

A checker runs the learner's function on hidden cases, compares with the tested helper and
prints one clear verdict. On the first failing case it shows where the arrays differ (expected
vs got) and, when the wrong answer matches a classic mistake, names that mistake as a hint.
A stub that raises ``NotImplementedError`` is reported as "not yet implemented".
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Case", "Mistake", "as_numpy", "run_checker"]


@dataclass(frozen=True)
class Case:
    """One hidden test: the positional arguments, the expected result and a short label."""

    args: tuple
    expected: Any
    label: str


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: ``answer(*case.args)`` gives what the buggy version returns."""

    answer: Callable[..., Any]
    hint: str
    kwargs: dict = field(default_factory=dict)


def as_numpy(value: Any) -> np.ndarray:
    """Accept numpy arrays, torch tensors (any device, with or without grad) or nested lists."""
    if hasattr(value, "detach"):
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":
            value = value.float()
        value = value.numpy()
    return np.asarray(value)


def _first_difference(expected: np.ndarray, got: np.ndarray, atol: float) -> str:
    bad = ~np.isclose(got, expected, atol=atol, rtol=0.0)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    return (
        f"first difference at index {index}: expected {float(expected[index]):.6g}, "
        f"got {float(got[index]):.6g}"
    )


def _matches(got: np.ndarray, other: Any, atol: float) -> bool:
    other = as_numpy(other)
    return other.shape == got.shape and np.allclose(got, other, atol=atol, rtol=0.0)


def run_checker(
    title: str,
    fn: Callable[..., Any],
    cases: Sequence[Case],
    mistakes: Sequence[Mistake] = (),
    atol: float = 1e-6,
    generic_hint: str = "",
) -> bool:
    """Run ``fn`` on every case; print a verdict; return True only if every case passes."""
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}")
    for case in cases:
        try:
            got = fn(*case.args)
        except NotImplementedError:
            print(f"{title}: not yet implemented (your function raises NotImplementedError).")
            return False
        except Exception as error:  # the learner's bug, reported rather than raised
            print(
                f"{title}: FAILED on {case.label}: your function raised "
                f"{type(error).__name__}: {error}"
            )
            return False
        got, expected = as_numpy(got), as_numpy(case.expected)
        if expected.dtype == bool and got.dtype != bool:
            print(
                f"{title}: FAILED on {case.label}: expected a boolean mask (True = may "
                f"attend), got dtype {got.dtype}."
            )
            print(
                "  Hint: build it with comparisons or torch.ones(..., dtype=torch.bool); a 0/1 "
                "float mask given to F.scaled_dot_product_attention is ADDED to the scores "
                "and masks nothing."
            )
            return False
        if expected.dtype != bool:
            got = got.astype(np.float64)
        if got.shape != expected.shape:
            print(
                f"{title}: FAILED on {case.label}: expected shape {expected.shape}, "
                f"got {got.shape}."
            )
            return False
        if expected.dtype == bool:
            same = np.array_equal(got, expected)
        else:
            same = np.allclose(got, expected, atol=atol, rtol=0.0)
        if not same:
            print(f"{title}: FAILED on {case.label}.")
            if expected.dtype != bool:
                print("  " + _first_difference(expected, got, atol))
            for mistake in mistakes:
                if _matches(got, mistake.answer(*case.args), atol):
                    print("  Hint: " + mistake.hint)
                    break
            else:
                if generic_hint:
                    print("  Hint: " + generic_hint)
            return False
    print(f"{title}: all {len(cases)} hidden cases pass.")
    return True
