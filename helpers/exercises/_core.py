"""The machinery every exercise checker shares.

A checker runs the learner's function on hidden cases, compares with the tested helper and
prints one clear verdict. On the first failing case it shows where the arrays differ (expected
vs got) and, when the wrong answer matches a classic mistake, names that mistake as a hint.
A stub that raises ``NotImplementedError`` is reported as "not yet implemented".

Whatever the learner's function does (returns None, a string or a generator, raises, loops
forever, prints a lot, changes its arguments in place), the checker ends with a one-line
verdict and never raises: every call gets deep copies of the case's arguments, expected answers
and hints come from the pristine copies, and the result is converted and compared inside the
guarded region.
"""

from __future__ import annotations

import contextlib
import copy
import inspect
import io
import numbers
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._convert import as_numpy
from ._diagnose import Diagnosis, FailedCase, View, diagnose, smallest_case

__all__ = ["Case", "Diagnosis", "Mistake", "View", "as_numpy", "cases_from", "run_checker"]

TIME_LIMIT_S = 10.0  # per call of the learner's function, where the platform allows a limit
_PRINTED_CHARS = 300  # how much of the learner's printed output a verdict shows


@dataclass(frozen=True)
class Case:
    """One hidden test: the positional arguments, the expected result and a short label."""

    args: tuple
    expected: Any
    label: str


def cases_from(
    reference: Callable[..., Any], args_list: Iterable[tuple], label: Callable[..., str]
) -> list[Case]:
    """One case per tuple of ``args_list``: the tested ``reference(*args)`` is the expected
    answer and ``label(*args)`` names the case in a verdict."""
    return [Case(tuple(args), reference(*args), label(*args)) for args in args_list]


@dataclass(frozen=True)
class Mistake:
    """A known wrong answer: ``answer(*case.args)`` gives what the buggy version returns."""

    answer: Callable[..., Any]
    hint: str


class CaseFailedError(Exception):
    """Raised inside a check step: the case fails with this message (and optional hint)."""

    def __init__(
        self, message: str, hint: str = "", detail: bool = False, array: Any = None
    ) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint
        self.detail = detail  # True: the message goes on its own line after "FAILED on ..."
        self.array = array  # the learner's converted result, when there is one


class _TimeUp(BaseException):
    """Raised by the alarm; a BaseException so that a learner's ``except Exception`` keeps out."""


# ------------------------------------------------------------------------------ calling fn


@contextlib.contextmanager
def _time_limit(seconds: float | None) -> Iterator[None]:
    """Raise ``_TimeUp`` after ``seconds`` (main thread with ``setitimer`` only; else no limit)."""
    usable = (
        seconds is not None
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def alarm(signum: int, frame: object) -> None:
        raise _TimeUp

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _call(fn: Callable[..., Any], args: tuple, time_limit: float | None) -> tuple[Any, str, str]:
    """Call ``fn`` on a deep copy of ``args``; return (result, what it printed, the name of an
    array argument it changed in place, or "")."""
    printed = io.StringIO()
    given = copy.deepcopy(args)
    with contextlib.redirect_stdout(printed), _time_limit(time_limit):
        result = fn(*given)
    changed = [i for i, (a, b) in enumerate(zip(args, given, strict=True)) if _changed(a, b)]
    return result, printed.getvalue(), _argument_name(fn, changed[0]) if changed else ""


def _changed(before: Any, after: Any) -> bool:
    """Whether an array argument (a torch tensor or a NumPy array) holds other values now."""
    if hasattr(before, "detach") and hasattr(after, "detach"):  # torch tensors
        before, after = before.detach().cpu().numpy(), after.detach().cpu().numpy()
    if not (isinstance(before, np.ndarray) and isinstance(after, np.ndarray)):
        return False
    if before.shape != after.shape:
        return True
    return not np.array_equal(before, after, equal_nan=before.dtype.kind in "fc")


def _argument_name(fn: Callable[..., Any], index: int) -> str:
    try:
        names = list(inspect.signature(fn).parameters)
    except (TypeError, ValueError):
        names = []
    return f"`{names[index]}`" if index < len(names) else f"number {index + 1}"


def _shorten(text: str) -> str:
    text = text.strip()
    if len(text) > _PRINTED_CHARS:
        text = text[:_PRINTED_CHARS] + f" ... ({len(text) - _PRINTED_CHARS} more characters)"
    return text.replace("\n", "\n    ")


# ------------------------------------------------------------------------------ converting


def _describe(expected: np.ndarray) -> str:
    if expected.ndim == 0:
        return "a number"
    kind = "boolean array" if expected.dtype == bool else "array"
    return f"a {kind} of shape {expected.shape}"


def _to_array(got: Any, expected: np.ndarray) -> np.ndarray:
    """Convert the learner's result, or raise ``CaseFailedError`` naming what came back."""
    what = type(got).__name__
    if isinstance(got, complex):
        raise CaseFailedError(f"returned a complex number ({got}), expected a real one")
    if not isinstance(got, (list, tuple, numbers.Real, np.ndarray, np.generic)) and not hasattr(
        got, "detach"
    ):
        raise CaseFailedError(f"returned {what}, expected {_describe(expected)}")
    try:
        array = as_numpy(got)
    except (ValueError, TypeError, RuntimeError):
        message = f"returned a {what} that is not a rectangular array, expected"
        raise CaseFailedError(f"{message} {_describe(expected)}") from None
    if array.dtype.kind == "c":
        raise CaseFailedError(f"returned complex numbers ({array.dtype}), expected real ones")
    if array.dtype.kind not in "biuf":
        raise CaseFailedError(
            f"returned {what} of {array.dtype} values, expected {_describe(expected)}"
        )
    if array.size == 0 and expected.size == 0:
        array = array.reshape(expected.shape)  # e.g. [] for zero positions
    return array


def _as_mask(got: np.ndarray, mask_hint: str) -> np.ndarray:
    """A boolean mask, or a float additive mask holding only 0 and -inf (0 = may attend)."""
    if got.dtype == bool:
        return got
    if got.dtype.kind == "f" and got.size and np.all((got == 0) | (got == -np.inf)):
        return got == 0
    raise CaseFailedError(
        f"expected a boolean mask (True = may attend), got dtype {got.dtype}.", hint=mask_hint
    )


# ------------------------------------------------------------------------------ comparing


@dataclass(frozen=True)
class _Tolerance:
    """Closeness relative to the size of the expected answer: float32 answers pass."""

    rtol: float
    atol: float

    def close(self, got: np.ndarray, expected: np.ndarray) -> np.ndarray:
        magnitude = float(np.max(np.abs(expected), initial=0.0))
        atol = self.atol * (magnitude if magnitude > 0 else 1.0)
        with np.errstate(invalid="ignore", over="ignore"):
            return np.isclose(got, expected, rtol=self.rtol, atol=atol)

    def same(self, got: np.ndarray, expected: np.ndarray) -> bool:
        if got.shape != expected.shape:
            return False
        if expected.dtype == bool:
            return bool(np.array_equal(got.astype(bool), expected))
        return bool(np.all(self.close(got.astype(np.float64), expected.astype(np.float64))))


def _format_pair(expected: float, got: float) -> tuple[str, str]:
    """Format two numbers with just enough digits to tell them apart (6 at least)."""
    for digits in range(6, 18):
        a, b = f"{expected:.{digits}g}", f"{got:.{digits}g}"
        if a != b:
            break
    return a, b


def _first_difference(got: np.ndarray, expected: np.ndarray, tolerance: _Tolerance) -> str:
    bad = got != expected if expected.dtype == bool else ~tolerance.close(got, expected)
    index = tuple(int(i) for i in np.argwhere(bad)[0])
    a, b = _format_pair(float(expected[index]), float(got[index]))
    where = f" at index {index}" if index else ""
    return f"first difference{where}: expected {a}, got {b}"


def _named_mistake(
    got: np.ndarray, case: Case, mistakes: Sequence[Mistake], tolerance: _Tolerance
) -> str:
    for mistake in mistakes:
        try:
            other = as_numpy(mistake.answer(*copy.deepcopy(case.args)))
        except Exception:  # a mistake that does not apply to this case
            continue
        if tolerance.same(got, other):
            return mistake.hint
    return ""


# ------------------------------------------------------------------------------ one case


@dataclass(frozen=True)
class _Spec:
    """Everything a checker tells the runner besides the cases."""

    mistakes: Sequence[Mistake]
    tolerance: _Tolerance
    mask_hint: str
    extract: Callable[[Any, tuple], Any] | None
    time_limit: float | None
    returns: str = ""  # "tensor": a torch tensor is asked for; "float" / "integer": those values


@dataclass
class _Outcome:
    """What one case gave: a failure text (None: passed), the compared array if there was one,
    the hint found for this case alone, and whether to stop running cases."""

    case: Case
    failure: str | None = None
    array: np.ndarray | None = None
    hint: str = ""
    printed: str = ""
    stop: bool = False
    detail: bool = False


def _compare(got: Any, case: Case, spec: _Spec, outcome: _Outcome) -> None:
    """Raise ``CaseFailedError`` unless ``got`` matches ``case.expected``."""
    expected = as_numpy(case.expected)
    if spec.extract is not None:
        got = spec.extract(got, copy.deepcopy(case.args))
    if spec.returns == "tensor" and not hasattr(got, "detach"):
        raise CaseFailedError(
            f"returned a {type(got).__module__.split('.')[0]}.{type(got).__name__}, expected a "
            "torch tensor: the attention code fills the scores with scores.masked_fill(~mask, "
            "-inf), and masked_fill (like F.scaled_dot_product_attention's attn_mask) takes a "
            "torch bool tensor, not a NumPy array."
        )
    array = _to_array(got, expected)
    if spec.returns == "float" and array.dtype.kind in "biu":
        raise CaseFailedError(f"returned {array.dtype} values, expected floats (0.0 and 1.0).")
    if spec.returns == "integer" and array.dtype.kind not in "iu":
        raise CaseFailedError(
            f"returned {array.dtype} values, expected integers: offset + max_distance picks "
            "a row of the table of learned vectors, and torch indexes only with integer "
            "tensors (a float index raises IndexError)."
        )
    if expected.dtype == bool:
        array = _as_mask(array, spec.mask_hint)
    outcome.array = array
    if spec.tolerance.same(array, expected):
        return
    if array.shape != expected.shape:
        raise CaseFailedError(f"expected shape {expected.shape}, got {array.shape}.")
    raise CaseFailedError(_first_difference(array, expected, spec.tolerance), detail=True)


def _run_case(fn: Callable[..., Any], case: Case, spec: _Spec) -> _Outcome:
    """Run one case; never raise for the learner's code."""
    outcome = _Outcome(case)
    try:
        got, outcome.printed, changed = _call(fn, case.args, spec.time_limit)
        _compare(got, case, spec, outcome)
        if changed:  # the right values, but the caller's data is gone: no value to diagnose
            outcome.array = None
            raise CaseFailedError(
                f"your function returns the right values but changes its argument {changed} in "
                "place, so the caller's tensor is no longer what it passed in: work on a copy, "
                "or build a new tensor (x * 2, not x *= 2 or x[...] = ...)."
            )
    except NotImplementedError:
        outcome.failure = "not yet implemented (your function raises NotImplementedError)."
        outcome.stop = True
    except _TimeUp:
        outcome.failure = (
            f"FAILED on {case.label}: took longer than {spec.time_limit:g} s: an infinite loop?"
        )
        outcome.stop = True
    except CaseFailedError as failure:
        separator = ".\n  " if failure.detail else ": "
        outcome.failure = f"FAILED on {case.label}{separator}{failure.message}"
        outcome.hint = failure.hint
        outcome.detail = failure.detail
        if failure.array is not None:
            outcome.array = np.asarray(failure.array)
    except Exception as error:  # the learner's bug, reported rather than raised
        name = type(error).__name__
        outcome.failure = f"FAILED on {case.label}: your function raised {name}: {error}"
        outcome.array = None
    return outcome


def _mistake_on_every_case(outcomes: Sequence[_Outcome], spec: _Spec) -> str:
    """The hint of the first mistake that gives the learner's array on every failing case it
    applies to (a mistake whose answer is undefined or raises on a case does not apply)."""
    failing = [o for o in outcomes if o.failure is not None and o.array is not None]
    for mistake in spec.mistakes:
        compared = 0
        for outcome in failing:
            try:
                other = as_numpy(mistake.answer(*copy.deepcopy(outcome.case.args)))
            except Exception:  # a mistake that does not apply to this case
                continue
            if other.dtype.kind == "f" and not np.all(np.isfinite(other)):
                continue  # undefined there (a row with nothing to attend to): not compared
            if not spec.tolerance.same(outcome.array, other):
                break
            compared += 1
        else:
            if compared:
                return mistake.hint
    return ""


def _mistake_on_some_cases(outcomes: Sequence[_Outcome], spec: _Spec) -> str:
    """A mistake that gives the learner's array on some of the failing cases (an answer with
    two bugs often shows one of them alone where the other has no effect)."""
    failing = [o for o in outcomes if o.failure is not None and o.array is not None]
    for mistake in spec.mistakes:
        matched = []
        for outcome in failing:
            try:
                other = as_numpy(mistake.answer(*copy.deepcopy(outcome.case.args)))
            except Exception:  # a mistake that does not apply to this case
                continue
            if spec.tolerance.same(outcome.array, other):
                matched.append(outcome.case.label)
        if len(matched) >= 2:  # one case alone may be a coincidence
            where = "; ".join(matched)
            return (
                f"on {len(matched)} of the {len(failing)} failing cases ({where}) your result "
                f"equals that of a known mistake (elsewhere something else differs): "
                + mistake.hint
            )
    return ""


def _passed_cases(outcomes: Sequence[_Outcome]) -> list[FailedCase]:
    """The cases the answer got right, with its arrays (for views that judge every case)."""
    return _failed_cases(outcomes, passed=True)


def _failed_cases(outcomes: Sequence[_Outcome], passed: bool = False) -> list[FailedCase]:
    failed = []
    for outcome in outcomes:
        if (outcome.failure is None) is not passed or outcome.array is None:
            continue
        expected = as_numpy(outcome.case.expected)
        got = outcome.array
        if expected.dtype == bool:
            got = got.astype(bool)
        else:
            got, expected = got.astype(np.float64), expected.astype(np.float64)
        failed.append(FailedCase(outcome.case.label, outcome.case.args, got, expected))
    return failed


def _hint(outcomes: Sequence[_Outcome], first: _Outcome, spec: _Spec, diagnosis: Diagnosis) -> str:
    """A named mistake, else the checker's own diagnosis of the first failing case, else the
    first relation true on every failing case, else the smallest failing case shown."""
    named = _mistake_on_every_case(outcomes, spec)
    if named:
        return named
    if first.array is None and not first.hint:
        return ""  # the function raised or returned something that is not an array
    if first.hint:
        return first.hint  # the checker's own diagnosis of this case
    failed = _failed_cases(outcomes)
    try:
        found = diagnose(failed, diagnosis, _passed_cases(outcomes))
        shown = "" if found else smallest_case(failed)
    except Exception:  # a diagnosis must never cost the learner the verdict
        found, shown = "", ""
    if found:
        return found
    partly = _mistake_on_some_cases(outcomes, spec)
    if partly:
        return partly
    if not shown:
        return ""
    return (
        "no simple relation to the expected result (sign, factor, offset, order, shift, "
        "which part) holds on every failing case; " + shown
    )


def run_checker(
    title: str,
    fn: Callable[..., Any],
    cases: Sequence[Case],
    mistakes: Sequence[Mistake] = (),
    rtol: float = 1e-5,
    atol: float = 1e-5,
    generic_hint: str = "",
    mask_hint: str = "",
    extract: Callable[[Any, tuple], Any] | None = None,
    time_limit: float | None = -1.0,
    diagnosis: Diagnosis | None = None,
    returns: str = "",
) -> bool:
    """Run ``fn`` on every case; print a verdict; return True only if every case passes.

    ``atol`` is relative to the largest expected magnitude of each case; ``extract(result,
    args)`` turns the learner's result into the array to compare (raising ``CaseFailedError``,
    whose hint is used when nothing better is found); ``mask_hint`` is shown when a mask comes
    back with a non-boolean dtype; ``time_limit`` is the limit per call in seconds (negative:
    ``TIME_LIMIT_S``, None: no limit); ``returns`` is "tensor" when the exercise asks for a
    torch tensor (a mask: masked_fill takes tensors), "float" when it asks for float values,
    "integer" when it asks for integers (indices). A function that changes an array
    argument in place fails, whatever it returns. On a failure every case is run, and the hint is a
    registered mistake that matches on every case, else what :func:`diagnose` finds true on
    every failing case (``diagnosis`` declares the checker's axes and views), else the smallest
    failing case. ``generic_hint`` is kept for callers' compatibility and no longer shown: a
    rule restated is not a hint about this answer.
    """
    if not callable(fn):
        raise TypeError(f"fn must be a function, got {type(fn).__name__}")
    if time_limit is not None and time_limit < 0:
        time_limit = TIME_LIMIT_S
    del generic_hint
    if returns not in ("", "tensor", "float", "integer"):
        raise ValueError(f"returns must be '', 'tensor', 'float' or 'integer', got {returns!r}")
    spec = _Spec(mistakes, _Tolerance(rtol, atol), mask_hint, extract, time_limit, returns)
    outcomes: list[_Outcome] = []
    first: _Outcome | None = None
    for case in cases:
        outcome = _run_case(fn, case, spec)
        outcomes.append(outcome)
        if outcome.failure is not None and first is None:
            first = outcome
        if outcome.stop:
            break
    if first is None:
        _report(f"{title}: all {len(cases)} hidden cases pass.", outcomes[-1].printed)
        return True
    verdict = f"{title}: {first.failure}"
    if not first.stop:
        hint = _hint(outcomes, first, spec, diagnosis or Diagnosis())
        if hint:
            verdict += "\n  Hint: " + hint
    _report(verdict, first.printed)
    return False


def _report(verdict: str, printed: str) -> None:
    print(verdict)
    if printed.strip():
        print("  Your function printed: " + _shorten(printed))
