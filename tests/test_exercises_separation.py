"""Every checker's hidden cases tell its classic mistakes apart.

For each checker, every pair of its registered mistakes, and each mistake and the right answer,
give different results on at least one hidden case: otherwise a learner who made one mistake
could be told about the other, or a wrong answer could pass. The cases and mistakes are read
from the checker itself, by catching the arguments it hands to ``run_checker``.
"""

from __future__ import annotations

import copy
import importlib
import itertools

import numpy as np
import pytest

import helpers.exercises as exercises
from helpers.exercises._core import _Tolerance, as_numpy

MODULES = [
    "order_blind",
    "encodings",
    "relative_rotary",
    "length_extrapolation",
    "long_context",
    "graph",
    "attention",
    "transformer",
    "production",
    "rotary_microscope",
    "per_layer",
]


def checker_setup(name: str) -> dict:
    """The cases, mistakes and tolerance a checker hands to run_checker."""
    for module_name in MODULES:
        module = importlib.import_module(f"helpers.exercises.{module_name}")
        if name in module.__all__:
            break
    captured: dict = {}

    def capture(title, fn, cases, mistakes=(), rtol=1e-5, atol=1e-5, **kwargs):
        captured.update(cases=list(cases), mistakes=list(mistakes), rtol=rtol, atol=atol)
        captured.update(kwargs)
        return True

    original = module.run_checker
    module.run_checker = capture
    try:
        getattr(module, name)(lambda *args: None)
    finally:
        module.run_checker = original
    return captured


def _result(answer, case):
    try:
        return as_numpy(answer(*copy.deepcopy(case.args)))
    except Exception:
        return None


def _differ(a, b, tolerance: _Tolerance) -> bool:
    if a is None or b is None:
        return a is not b
    return (
        not tolerance.same(a.astype(np.float64), b.astype(np.float64))
        if a.shape == b.shape
        else True
    )


@pytest.mark.parametrize("name", exercises.__all__)
def test_every_pair_of_mistakes_and_the_right_answer_differ_on_some_case(name):
    setup = checker_setup(name)
    cases, mistakes = setup["cases"], setup["mistakes"]
    tolerance = _Tolerance(setup["rtol"], setup["atol"])
    right = [as_numpy(case.expected) for case in cases]
    outputs = [[_result(m.answer, case) for case in cases] for m in mistakes]
    for i, results in enumerate(outputs):
        assert any(_differ(r, e, tolerance) for r, e in zip(results, right, strict=True)), (
            f"{name}: mistake {i} ({mistakes[i].hint[:50]}...) passes every case"
        )
    for (i, a), (j, b) in itertools.combinations(enumerate(outputs), 2):
        assert any(_differ(x, y, tolerance) for x, y in zip(a, b, strict=True)), (
            f"{name}: mistakes {i} and {j} give the same result on every case"
        )


@pytest.mark.parametrize("name", exercises.__all__)
def test_no_mistake_is_the_right_answer_on_the_first_failing_case_only_by_coincidence(name):
    """Each mistake differs from the right answer on at least two cases, or on every case
    where it differs at all it differs clearly: one coincidental case does not name it."""
    setup = checker_setup(name)
    cases, mistakes = setup["cases"], setup["mistakes"]
    tolerance = _Tolerance(setup["rtol"], setup["atol"])
    for mistake in mistakes:
        differing = [
            case.label
            for case in cases
            if _differ(_result(mistake.answer, case), as_numpy(case.expected), tolerance)
        ]
        assert differing, f"{name}: {mistake.hint[:60]}"
