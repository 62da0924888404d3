"""Hidden cases of the nbgrader assignments (part of ``scripts/build_assignments.py``): the
course's checkers are run once with the worked solutions while every ``run_checker`` call is
recorded; each recorded case is redrawn (new float values, shuffled token ids, other sizes of the
same parity), answered by the worked solution and packed, compressed, into the lecturer's test
cell. The checker's named mistakes that get their own hint back are listed for smoke tests.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import io
import pickle
import sys
import zlib
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

__all__ = [
    "MAX_HIDDEN_BYTES",
    "MAX_HIDDEN_CASES",
    "encode",
    "hidden_spec",
    "recording",
    "submittable_mistakes",
]

MAX_HIDDEN_CASES = 4
MAX_HIDDEN_BYTES = 200_000  # larger pickled cases (e.g. a whole model) are left out


@contextlib.contextmanager
def recording() -> Iterator[list[dict[str, Any]]]:
    """Record every ``run_checker`` call the course's checkers make (and stay silent)."""
    import helpers.exercises  # noqa: F401  (loads every checker module)
    from helpers.exercises import _core

    calls: list[dict[str, Any]] = []
    original = _core.run_checker

    def recorder(title: str, fn: Callable, cases: Any, mistakes: Any = (), **kwargs: Any) -> bool:
        calls.append({"title": title, "cases": list(cases), "mistakes": list(mistakes), **kwargs})
        return original(title, fn, cases, mistakes, **kwargs)

    modules = [m for n, m in sys.modules.items() if n.startswith("helpers.exercises") and m]
    patched = [m for m in modules if getattr(m, "run_checker", None) is original]
    for module in patched:
        module.run_checker = recorder
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            yield calls
    finally:
        for module in patched:
            module.run_checker = original


def _perturb(value: Any, rng: np.random.Generator) -> Any:
    """The same kind of argument with other values: floats redrawn, token ids shuffled, sizes
    moved (same parity); booleans, models and small integers (ids, flags) kept."""
    if isinstance(value, torch.Tensor):
        return _perturb_tensor(value, rng)
    if isinstance(value, np.ndarray):
        return _perturb_array(value, rng)
    if isinstance(value, bool):
        return value
    if isinstance(value, int) and value >= 4:  # a size: somewhere in [value/2, 2 value]
        return int(rng.integers(max(2, value // 2) // 2, value) * 2 + value % 2)
    if isinstance(value, float) and value != 0.0:
        return float(value * rng.uniform(0.5, 2.0))
    return copy.deepcopy(value)


def _perturb_tensor(value: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    if value.is_floating_point():
        scale = float(value.std()) if value.numel() > 1 else 1.0
        fresh = rng.normal(float(value.mean()), scale or 1.0, size=tuple(value.shape))
        return torch.as_tensor(fresh, dtype=value.dtype)
    if value.dtype != torch.bool and value.ndim >= 1 and value.shape[-1] > 1:  # token ids
        return value[..., torch.as_tensor(rng.permutation(value.shape[-1]))].clone()
    return value.clone()


def _perturb_array(value: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if _is_graph(value):  # relabel the nodes: the same graph, another order
        order = rng.permutation(value.shape[0])
        return value[np.ix_(order, order)].copy()
    if value.dtype.kind == "f":
        fresh = rng.normal(value.mean(), value.std() or 1.0, size=value.shape)
        return fresh.astype(value.dtype)
    if value.dtype.kind in "iu" and value.ndim >= 1 and value.shape[-1] > 1:  # positions, ids
        return value[..., rng.permutation(value.shape[-1])].copy()
    return value.copy()


def _is_graph(value: np.ndarray) -> bool:
    """A square symmetric matrix (an adjacency matrix): its values carry structure."""
    return value.ndim == 2 and value.shape[0] == value.shape[1] and np.array_equal(value, value.T)


def _finite(result: Any) -> bool:
    from helpers._convert import as_numpy

    if isinstance(result, tuple):
        return all(_finite(part) for part in result)
    try:
        array = as_numpy(result)
    except (TypeError, ValueError, RuntimeError):
        return False
    return array.dtype.kind in "biuf" and bool(np.all(np.isfinite(array.astype(np.float64))))


def hidden_spec(call: dict[str, Any], solution: Callable, rng: np.random.Generator) -> dict | None:
    """New cases from the checker's recorded call, answered by the worked solution."""
    from helpers.exercises._core import Case, run_checker

    cases = []
    for case in call["cases"]:
        args = tuple(_perturb(a, rng) for a in case.args)
        try:
            with contextlib.redirect_stdout(io.StringIO()):
                expected = solution(*copy.deepcopy(args))
                if call.get("extract") is not None:  # what the checker compares, e.g. weights
                    expected = call["extract"](expected, copy.deepcopy(args))
        except Exception:  # the worked solution refuses these sizes: not a case
            continue
        if _finite(expected) and not _same_args(args, case.args):
            cases.append(Case(args, expected, f"hidden case {len(cases) + 1}"))
        if len(cases) == MAX_HIDDEN_CASES:
            break
    if not cases:
        return None
    options = {k: v for k, v in call.items() if k not in ("title", "cases", "mistakes")}
    if not _picklable(options.get("extract")):
        # A hint-choosing closure (lessons 11's checkers): it passes right answers on unchanged,
        # so the hidden cases compare the same values without it; the public cell keeps the hints.
        options.pop("extract")
    spec = {"title": call["title"] + " (hidden cases)", "cases": cases, **options}
    with contextlib.redirect_stdout(io.StringIO()):
        if not run_checker(fn=solution, **spec):
            return None
    return spec


def _picklable(value: Any) -> bool:
    try:
        pickle.dumps(value)
    except Exception:  # closures and local functions cannot be stored with the hidden cases
        return False
    return True


def _same_args(a: tuple, b: tuple) -> bool:
    try:
        return pickle.dumps(a) == pickle.dumps(b)
    except Exception:
        return False


def _importable(function: Callable) -> str | None:
    """``module:qualname`` for a module-level function, None for a lambda or a closure."""
    qualname = getattr(function, "__qualname__", "")
    if "<" in qualname or not getattr(function, "__module__", None):
        return None
    return f"{function.__module__}:{qualname}"


def submittable_mistakes(call: dict[str, Any]) -> list[tuple[str, str]]:
    """The checker's named mistakes that, handed in as the answer, get their own hint back:
    (``module:function``, hint). A lecturer's smoke test, and the end-to-end test's."""
    from helpers.exercises._core import run_checker

    found = []
    options = {k: v for k, v in call.items() if k not in ("cases",)}
    for mistake in call["mistakes"]:
        # a closure (e.g. a wrapper aligning signs) hands in the module-level function it wraps
        inner = [
            c.cell_contents for c in mistake.answer.__closure__ or () if callable(c.cell_contents)
        ]
        for answer in [mistake.answer, *inner]:
            path = _importable(answer)
            if path is None:
                continue
            printed = io.StringIO()
            with contextlib.redirect_stdout(printed):
                passed = run_checker(fn=answer, cases=call["cases"], **options)
            if not passed and mistake.hint in printed.getvalue():
                found.append((path, mistake.hint))
                break
    return found


def encode(spec: dict) -> str | None:
    try:
        blob = base64.b64encode(zlib.compress(pickle.dumps(spec), 9)).decode("ascii")
    except (pickle.PicklingError, TypeError, AttributeError):
        return None
    return blob if len(blob) <= MAX_HIDDEN_BYTES else None
