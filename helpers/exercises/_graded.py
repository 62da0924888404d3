"""Graded cases for nbgrader assignments: stored outside the notebook, run without revealing them.

``scripts/build_assignments.py`` draws new cases for each implementation exercise and writes
them, answered by the worked solution, to ``graded_cases/<assignment>.json`` in the lecturer's
nbgrader course folder: never into a notebook, so neither the student version nor the feedback
(which shows every cell's source) can carry them. The file is plain JSON (arrays as nested lists
with their dtype, options by name), which loading cannot turn into running code, unlike pickle.

Each assignment's locked test cell calls :func:`run_graded_cases`. On a student's machine there
is no such file and the call says so and passes (the public checker above it decides). While
nbgrader autogrades (``NBGRADER_EXECUTION=autograde``) the file must be found: it runs the cases
through the checker's own runner and prints the verdict with every number that could come from
a graded case masked, and it gives 0 to an answer that calls the course's own implementation of
what the exercise asks for (the helpers the checker computes its expected answers with).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import math
import os
import re
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ._core import Case, run_checker

__all__ = ["decode", "encode", "find_cases_file", "run_graded_cases"]

CASES_FOLDER = "graded_cases"  # beside nbgrader_config.py in the course folder
_SEARCH_DEPTH = 5  # autograded/<student>/<assignment>/ is three folders below the course
_WRAP = 96  # characters per line of a verdict in the feedback (long hints wrap, never cut)
# A number with a fractional part or an exponent could be a graded case's value: masked.
_NUMBER = re.compile(r"(?<![\w.])-?(?:\d+\.\d*|\.\d+|\d+(?=[eE]))(?:[eE][-+]?\d+)?")
_ALLOWED_FUNCTION_MODULES = ("helpers.",)  # options naming a function: only the course's own


# ------------------------------------------------------------------------------ the format


def encode(value: Any) -> Any:
    """A JSON-ready form of a case's value: tensors and arrays with their dtype and shape,
    tuples kept apart from lists, functions by ``module:qualname``; raises TypeError for
    anything else (a model, a closure), which then gets no graded case."""
    if isinstance(value, torch.Tensor | np.ndarray):
        return _encode_array(value)
    if isinstance(value, Case):
        return {"case": [encode(value.args), encode(value.expected), value.label]}
    if isinstance(value, tuple):
        return {"tuple": [encode(v) for v in value]}
    if isinstance(value, list):
        return [encode(v) for v in value]
    if isinstance(value, dict) and all(isinstance(k, str) for k in value):
        return {"dict": {k: encode(v) for k, v in value.items()}}
    if isinstance(value, np.generic):
        return encode(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return {"float": repr(value)}
    if value is None or isinstance(value, bool | int | float | str):
        return value
    if callable(value):
        return {"function": _function_path(value)}
    raise TypeError(f"cannot store a {type(value).__name__} in the graded cases")


def _encode_array(value: torch.Tensor | np.ndarray) -> dict:
    if isinstance(value, np.ndarray):
        return {"ndarray": value.dtype.str, "shape": list(value.shape), "data": _flat(value)}
    array = value.detach().cpu()
    kind = str(array.dtype).removeprefix("torch.")
    return {"tensor": kind, "shape": list(array.shape), "data": _flat(array.numpy())}


def decode(value: Any) -> Any:
    """The value :func:`encode` stored (no code runs: functions only from ``helpers``)."""
    if isinstance(value, list):
        return [decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    if "tensor" in value:
        dtype = getattr(torch, value["tensor"])
        flat = torch.tensor(value["data"], dtype=dtype) if value["data"] else torch.empty(0)
        return flat.to(dtype).reshape(value["shape"])
    if "ndarray" in value:
        return np.asarray(value["data"], dtype=np.dtype(value["ndarray"])).reshape(value["shape"])
    if "case" in value:
        args, expected, label = value["case"]
        return Case(decode(args), decode(expected), label)
    if "tuple" in value:
        return tuple(decode(v) for v in value["tuple"])
    if "dict" in value:
        return {k: decode(v) for k, v in value["dict"].items()}
    if "float" in value:
        return float(value["float"])
    if "function" in value:
        return _load_function(value["function"])
    raise ValueError(f"unknown entry in the graded cases: {sorted(value)}")


def _flat(array: np.ndarray) -> list:
    if array.dtype.kind == "f":  # NaN and infinities as JSON allows them (Python's json reads them)
        return [float(x) for x in array.reshape(-1)]
    return array.reshape(-1).tolist()


def _function_path(function: Callable) -> str:
    qualname = getattr(function, "__qualname__", "")
    module = getattr(function, "__module__", "") or ""
    # an object that is merely callable (a model instance) has no qualname: not storable by name
    if not qualname or "<" in qualname or not module.startswith(_ALLOWED_FUNCTION_MODULES):
        raise TypeError(f"cannot store the function {qualname or function!r} by name")
    return f"{module}:{qualname}"


def _load_function(path: str) -> Callable:
    module, _, qualname = path.partition(":")
    if not module.startswith(_ALLOWED_FUNCTION_MODULES):
        raise ValueError(f"graded cases may only name functions of helpers, not {path!r}")
    target: Any = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


# ------------------------------------------------------------------------------ finding


def find_cases_file(assignment: str, start: Path | None = None) -> Path | None:
    """``graded_cases/<assignment>.json`` in ``start`` (default: here) or a folder above it."""
    folder = Path.cwd() if start is None else Path(start)
    for candidate in [folder, *folder.resolve().parents][:_SEARCH_DEPTH]:
        path = candidate / CASES_FOLDER / f"{assignment}.json"
        if path.is_file():
            return path
    return None


def _autograding() -> bool:
    return os.environ.get("NBGRADER_EXECUTION") == "autograde"


# ------------------------------------------------------------------------------ running


@contextlib.contextmanager
def _watching(references: set[str]) -> Iterator[list[str]]:
    """Record every call of a function named in ``references`` (``module:qualname``)."""
    called: list[str] = []
    previous = sys.getprofile()

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call":
            code = frame.f_code
            name = f"{frame.f_globals.get('__name__', '')}:{code.co_qualname}"
            if name in references and name not in called:
                called.append(name)

    sys.setprofile(profile)
    try:
        yield called
    finally:
        sys.setprofile(previous)


def _masked(text: str) -> str:
    """The verdict with every number that may come from a graded case replaced by '…',
    wrapped so that no line of the feedback is cut off."""
    lines = []
    for line in _NUMBER.sub("…", text).splitlines():
        indent = re.match(r"\s*", line).group(0)
        lines += textwrap.wrap(line, _WRAP, subsequent_indent=indent + "  ") or [""]
    return "\n".join(lines)


def run_graded_cases(fn: Callable[..., Any], assignment: str, name: str) -> bool:
    """Run the graded cases of exercise ``name`` of ``assignment`` on ``fn``; print a verdict
    that shows no graded value; return True when every case passes (and, on a student's
    machine, where there are none)."""
    path = find_cases_file(assignment)
    if path is None:
        if _autograding():
            print(
                f"graded cases: {CASES_FOLDER}/{assignment}.json was not found beside the course's "
                "nbgrader_config.py: build the course with scripts/build_assignments.py."
            )
            return False
        print("graded cases: none here; your lecturer runs them when grading.")
        return True
    stored = json.loads(path.read_text(encoding="utf-8"))
    entry = stored["exercises"].get(name)
    if entry is None:
        print(f"graded cases: none for {name} (the builder could not draw any).")
        return True
    spec = decode(entry["spec"])
    references = set(entry.get("references", []))
    printed = io.StringIO()
    with _watching(references) as called, contextlib.redirect_stdout(printed):
        passed = run_checker(fn=fn, **spec)
    print(_masked(printed.getvalue().rstrip()))
    if called:
        used = ", ".join(f"{c.replace(':', '.')}" for c in called)
        print(
            _masked(
                f"graded cases: not accepted: {name} calls the course's own {used}, which "
                "computes the answer this exercise asks you to write yourself."
            )
        )
        return False
    return passed
