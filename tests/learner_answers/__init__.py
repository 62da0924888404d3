"""Learner-written answers for every exercise checker: wrong ones with the words their hint must
contain, and right ones written differently from the solutions, which must pass.

Add one by writing the function in the lesson's module and decorating it:

    @wrong("check_rotary", r"opposite sign")      # a regular expression the hint must match
    def rotary_turns_backwards(x, positions): ...

    @right("check_rotary")
    def rotary_with_complex_numbers(x, positions): ...

The wrong answers go beyond each checker's registered mistakes: slips as learners make them
(sign, off-by-one, degrees, the wrong axis, a dimension index for a pair index, float32, NumPy
instead of torch, in-place updates, forgotten edge cases). ``tests/test_learner_answers.py``
runs them; ``python scripts/evaluate_answer.py --corpus`` prints, per checker, the corpus size
and the share of hints that name the mistake or state a specific difference.
"""

from __future__ import annotations

import contextlib
import importlib
import io
from collections.abc import Callable
from dataclasses import dataclass

LESSONS = [
    "lesson_01",
    "lesson_02_05",
    "lesson_06_10",
    "lesson_11",
    "lesson_12_15",
    "lesson_14",
    "lesson_16",
    "lesson_17",
    "lesson_18",
]


@dataclass(frozen=True)
class Answer:
    checker: str
    fn: Callable
    words: str | None  # None: a right answer, which must pass

    @property
    def name(self) -> str:
        return self.fn.__name__


CORPUS: list[Answer] = []


def wrong(checker: str, words: str) -> Callable[[Callable], Callable]:
    """Register a wrong answer; ``words`` is a regular expression its hint must match."""

    def register(fn: Callable) -> Callable:
        CORPUS.append(Answer(checker, fn, words))
        return fn

    return register


def right(checker: str) -> Callable[[Callable], Callable]:
    """Register a right answer written differently from the solution: it must pass."""

    def register(fn: Callable) -> Callable:
        CORPUS.append(Answer(checker, fn, None))
        return fn

    return register


def variant(fn: Callable, name: str, **knobs) -> Callable:
    """``fn`` with some keyword arguments fixed, under its own name (one learner's slip)."""

    def answer(*args):
        return fn(*args, **knobs)

    answer.__name__ = answer.__qualname__ = name
    return answer


def evaluate(checker: str, fn: Callable) -> tuple[bool, str]:
    """Run ``checker`` on ``fn``; return (verdict, everything it printed)."""
    import helpers.exercises as exercises

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        ok = getattr(exercises, checker)(fn)
    return ok, printed.getvalue()


def hint_of(output: str) -> str:
    """The hint of a verdict ('' when there is none), lines joined."""
    if "Hint: " not in output:
        return ""
    return " ".join(line.strip() for line in output.split("Hint: ", 1)[1].splitlines())


def classify(checker: str, output: str, mistake_hints: set[str]) -> str:
    """'named' (a registered mistake), 'specific' (a stated difference), 'error' (the function
    raised, or returned something unusable, and the verdict says so) or 'none'."""
    hint = hint_of(output)
    if hint and any(hint.startswith(h.strip()[:60]) for h in mistake_hints):
        return "named"
    if hint and not hint.startswith("no simple relation"):
        return "specific"
    first = output.splitlines()[0] if output else ""
    if "your function raised" in first or "returned" in first:
        return "error"
    return "none"


def load() -> list[Answer]:
    """Import every lesson's module (registering its answers) and return the corpus."""
    for lesson in LESSONS:
        importlib.import_module(f"{__name__}.{lesson}")
    return CORPUS
