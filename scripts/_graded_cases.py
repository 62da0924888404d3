"""Graded cases of the nbgrader assignments (part of ``scripts/build_assignments.py``).

The course's checkers are run once with the worked solutions while every ``run_checker`` call is
recorded; each recorded case is redrawn (new float values, shuffled token ids, other sizes of the
same parity) and answered by the worked solution. The result is stored as JSON
(``helpers.exercises._graded.encode``) in ``graded_cases/NN_name.json`` of the course folder,
never in a notebook. While the checker runs, the helpers it computes its expected answers with
are recorded too: the exercise's *references*, which an answer may not call. The checker's named
mistakes that get their own hint back are listed for smoke tests.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import io
import json
import sys
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import torch

__all__ = [
    "MAX_GRADED_BYTES",
    "MAX_GRADED_CASES",
    "delegates",
    "encode",
    "graded_spec",
    "recording",
    "references",
    "submittable_mistakes",
    "tracing",
    "without_names",
]

MAX_GRADED_CASES = 4
MAX_GRADED_BYTES = 2_000_000  # JSON text of one exercise's graded cases; larger: left out


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


def _perturb(value: Any, rng: np.random.Generator, keep_sizes: bool = False) -> Any:
    """The same kind of argument with other values: floats redrawn, token ids shuffled, sizes
    moved (same parity); booleans, models and small integers (ids, flags) kept.

    ``keep_sizes`` (the second try, for a case whose sizes hang together, e.g. M-RoPE's sections
    and head width): integers kept, and a list's items put in another order instead (sections,
    segments of text and images)."""
    if keep_sizes and isinstance(value, list) and len(value) > 1:
        return [copy.deepcopy(value[i]) for i in rng.permutation(len(value))]
    if isinstance(value, torch.Tensor):
        return _perturb_tensor(value, rng)
    if isinstance(value, np.ndarray):
        return _perturb_array(value, rng)
    if isinstance(value, bool):
        return value
    if (
        isinstance(value, int) and value >= 4 and not keep_sizes
    ):  # a size: somewhere in [value/2, 2 value]
        return int(rng.integers(max(2, value // 2) // 2, value) * 2 + value % 2)
    if isinstance(value, float) and value != 0.0:
        return float(value * rng.uniform(0.5, 2.0))
    return copy.deepcopy(value)


def _perturb_tensor(value: torch.Tensor, rng: np.random.Generator) -> torch.Tensor:
    if value.is_floating_point():  # finite entries redrawn; -inf (a masked score) kept
        finite = torch.isfinite(value)
        kept = value[finite].double()
        scale = float(kept.std()) if kept.numel() > 1 else 1.0
        mean = float(kept.mean()) if kept.numel() else 0.0
        fresh = torch.as_tensor(rng.normal(mean, scale or 1.0, size=tuple(value.shape)))
        return torch.where(finite, fresh.to(value.dtype), value)
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


def graded_spec(call: dict[str, Any], solution: Callable, rng: np.random.Generator) -> dict | None:
    """New cases from the checker's recorded call, answered by the worked solution."""
    from helpers.exercises._core import Case, run_checker

    cases = []
    for case in call["cases"]:
        for keep_sizes in (False, True):  # sizes moved; else sizes kept, lists reordered
            drawn = _answered(case.args, call.get("extract"), solution, rng, keep_sizes)
            if drawn is not None:
                cases.append(Case(*drawn, f"graded case {len(cases) + 1}"))
                break
        if len(cases) == MAX_GRADED_CASES:
            break
    if not cases:
        return None
    # The checker's diagnosis (views are closures) stays with the public checker, whose verdict
    # the same test cell prints just above; the graded verdict masks its numbers anyway.
    dropped = ("title", "cases", "mistakes", "diagnosis")
    options = {k: v for k, v in call.items() if k not in dropped}
    if not _storable(options.get("extract")):
        # A hint-choosing closure (lessons 11's checkers): it passes right answers on unchanged,
        # so the graded cases compare the same values without it; the public cell keeps the hints.
        options.pop("extract")
    spec = {"title": call["title"] + " (graded cases)", "cases": cases, **options}
    with contextlib.redirect_stdout(io.StringIO()):
        if not run_checker(fn=solution, **spec):
            return None
    return spec


def _answered(
    args: tuple,
    extract: Callable | None,
    solution: Callable,
    rng: np.random.Generator,
    keep_sizes: bool,
) -> tuple[tuple, Any] | None:
    """One redrawn case (args, expected answer) from a recorded case's ``args``, or None when
    the worked solution refuses the new args, its answer is not finite, or nothing changed."""
    fresh = tuple(_perturb(a, rng, keep_sizes) for a in args)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            expected = solution(*copy.deepcopy(fresh))
            if extract is not None:  # what the checker compares, e.g. weights
                expected = extract(expected, copy.deepcopy(fresh))
    except Exception:  # the worked solution refuses these sizes: not a case
        return None
    if not _finite(expected) or _same_args(fresh, args):
        return None
    return fresh, expected


def _storable(value: Any) -> bool:
    from helpers.exercises._graded import encode

    try:
        encode(value)
    except TypeError:  # closures and local functions cannot be stored by name
        return False
    return True


def _same_args(a: tuple, b: tuple) -> bool:
    from helpers.exercises._graded import encode

    try:
        return json.dumps(encode(a)) == json.dumps(encode(b))
    except TypeError:
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


def encode(spec: dict) -> Any | None:
    """The spec as JSON-ready data (``helpers.exercises._graded.encode``), or None when it holds
    something JSON cannot (a model, a closure) or is too large."""
    from helpers.exercises._graded import encode

    try:
        data = encode(spec)
    except TypeError:
        return None
    return data if len(json.dumps(data)) <= MAX_GRADED_BYTES else None


_NOT_REFERENCES = ("helpers.exercises", "helpers._", "helpers.plots", "helpers.check_env")


def _helper_name(frame: Any) -> str | None:
    """``module:qualname`` of a frame's function when it is one of the course's own helpers."""
    module = frame.f_globals.get("__name__", "")
    if not module.startswith("helpers.") or module.startswith(_NOT_REFERENCES):
        return None
    return f"{module}:{frame.f_code.co_qualname}"


@contextlib.contextmanager
def tracing() -> Iterator[dict[str, Any]]:
    """Record what the helpers called straight from a checker's code return (``checker``: a list
    of (name, value)) and every helper called while the worked solution runs (``solution``)."""
    seen: dict[str, Any] = {"checker": [], "solution": set()}
    previous = sys.getprofile()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event not in ("call", "return") or (name := _helper_name(frame)) is None:
            return
        caller = frame.f_back
        while caller is not None:
            module = caller.f_globals.get("__name__", "")
            if module == "__assignment__":
                seen["solution"].add(name)
                return
            if module.startswith("helpers.exercises"):
                if caller is frame.f_back and event == "return":  # the checker computes with it
                    seen["checker"].append((name, arg))
                return
            caller = caller.f_back

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(previous)


def references(seen: dict[str, Any], cases: list) -> list[str]:
    """The helpers that returned (in full, or as one part of a tuple) the expected answer of
    every case, less those the worked solution itself calls: what the exercise asks the student
    to write."""
    from helpers._convert import as_numpy

    def same(value: Any, expected: Any) -> bool:
        try:
            a, b = as_numpy(value), as_numpy(expected)
        except (TypeError, ValueError, RuntimeError):
            return False
        return a.shape == b.shape and a.dtype.kind == b.dtype.kind and np.array_equal(a, b)

    answered: dict[str, set[int]] = {}  # helper -> the cases whose answer it returned
    for name, value in seen["checker"]:
        parts = value if isinstance(value, tuple) else (value,)
        hits = {i for i, case in enumerate(cases) for part in parts if same(part, case.expected)}
        answered.setdefault(name, set()).update(hits)
    found = {name for name, hits in answered.items() if cases and len(hits) == len(cases)}
    return sorted(found - seen["solution"])


def delegates(references: list[str], checker: Callable[[Callable], bool]) -> list[str]:
    """The references (``module:qualname``) that pass ``checker`` when handed in as the answer."""
    from helpers.exercises._graded import _load_function

    passing = []
    for reference in references:
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                if checker(_load_function(reference)):
                    passing.append(reference)
            except Exception:  # a reference the checker cannot call: not a delegate
                continue
    return passing


def without_names(setup: str, names: set[str]) -> str:
    """``setup`` with ``names`` dropped from its ``from helpers... import`` statements."""
    if not names:
        return setup
    lines = setup.splitlines()
    for node in reversed(ast.parse(setup).body):
        if not (isinstance(node, ast.ImportFrom) and (node.module or "").startswith("helpers")):
            continue
        kept = [alias for alias in node.names if (alias.asname or alias.name) not in names]
        if len(kept) == len(node.names):
            continue
        new = [ast.unparse(ast.ImportFrom(node.module, kept, node.level))] if kept else []
        lines[node.lineno - 1 : node.end_lineno] = new
    return "\n".join(lines)
