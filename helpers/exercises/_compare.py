"""What the diagnosis of a wrong answer compares, and how it words numbers.

The failing cases (:class:`FailedCase`), a checker's declaration (:class:`Diagnosis`, with its
:class:`View` s), the tolerances (a relation holds within ``MATCH`` of the largest magnitude and is
only named when the transformed array moved by more than ``MARGIN``), and the wording of index
ranges and familiar factors. Used by :mod:`helpers.exercises._diagnose` (the diagnosis of
every checker, notebooks 02-18).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

MATCH = 1e-5  # relative: within this, two arrays are the same
MARGIN = 1e-3  # relative: beyond this, two arrays clearly differ
PART_MARGIN = 1e-4  # relative: beyond this, a part differs (within MATCH it matches)


@dataclass(frozen=True)
class FailedCase:
    label: str
    args: tuple
    got: np.ndarray  # float64 or bool, same shape as expected
    expected: np.ndarray


@dataclass(frozen=True)
class View:
    """Another way to look at an answer: ``transform(array, args)`` applied to got and expected.

    ``name`` is plural ("the angles each pair turned by"); ``period`` compares modulo it (angles:
    2 pi); ``axes`` names the trailing axes of the transformed array.
    """

    name: str
    transform: Callable[[np.ndarray, tuple], np.ndarray]
    period: float | None = None
    axes: tuple[str, ...] = ()
    explain: Callable[[list[tuple[np.ndarray, np.ndarray, FailedCase]]], str] | None = None
    # False for a view that only subtracts a given part (your result minus pe): which of its
    # entries differ is which of the result's differ, and would blame the part not subtracted
    parts: bool = True
    # True: ``explain`` also gets the passing cases (after the failing ones), so that what it
    # states of the answer ("the formula with a knob turned") holds on every case checked
    every_case: bool = False


@dataclass(frozen=True)
class Diagnosis:
    """What a checker declares for the diagnosis, in a line or two.

    ``axes`` names the trailing axes of the answer ("position", "feature"); ``pairs``: the last
    axis holds interleaved pairs (2k, 2k+1); ``views``: exercise-specific views; ``regions(args,
    shape)`` returns named boolean masks over the answer ("the masked entries", ...); ``size``
    names the last axis length in factors (``"d"`` gives sqrt(d)).
    """

    axes: tuple[str, ...] = ()
    pairs: bool = False
    views: tuple[View, ...] = ()
    regions: Callable[[tuple, tuple], list[tuple[str, np.ndarray]]] | None = None  # "where ..."
    size: str = "d"


# ------------------------------------------------------------------------------ comparing


def _scale(e: np.ndarray) -> float:
    magnitude = float(np.max(np.abs(e), initial=0.0)) if e.size else 0.0
    return magnitude if magnitude > 0 else 1.0


def _diff(a: np.ndarray, b: np.ndarray, period: float | None) -> np.ndarray:
    with np.errstate(invalid="ignore", over="ignore"):
        d = np.abs(a - b)
        if period is not None:
            d = np.mod(d, period)
            d = np.minimum(d, period - d)
    return np.where(np.isnan(d), np.inf, d)


def _same(a: np.ndarray, b: np.ndarray, scale: float, period: float | None = None) -> bool:
    if a.shape != b.shape:
        return False
    if a.dtype == bool or b.dtype == bool:
        return bool(np.array_equal(a.astype(bool), b.astype(bool)))
    return bool(np.all(_diff(a, b, period) <= MATCH * scale))


def _clearly_differ(a: np.ndarray, b: np.ndarray, scale: float, period: float | None) -> bool:
    if a.shape != b.shape:
        return True
    if a.dtype == bool or b.dtype == bool:
        return not np.array_equal(a.astype(bool), b.astype(bool))
    return bool(np.any(_diff(a, b, period) > MARGIN * scale))


def _holds(
    cases: Sequence[tuple[np.ndarray, np.ndarray, tuple]],
    relation: Callable[[np.ndarray, np.ndarray, tuple], tuple[np.ndarray, np.ndarray] | None],
    period: float | None = None,
) -> bool:
    """``relation(got, expected, args)`` returns (got part, transformed expected part) or None;
    the relation holds when on every case they are the same and the transform clearly moved
    the expected values."""
    if not cases:
        return False
    checked = 0
    for got, expected, args in cases:
        try:
            with np.errstate(all="ignore"):
                pair = relation(got, expected, args)
        except (ValueError, IndexError, ZeroDivisionError):
            return False
        if isinstance(pair, str):
            continue  # "skip": the relation cannot be checked on this case
        if pair is None:
            return False
        checked += 1
        a, b, *reference = pair
        if a.size == 0:
            return False
        scale = _scale(b) if b.dtype != bool else 1.0
        original = reference[0] if reference else None
        if not _same(a, b, scale, period):
            return False
        if original is not None and not _clearly_differ(b, original, scale, period):
            return False
    return checked > 0


# ------------------------------------------------------------------------------ wording


def _ranges(indices: Sequence[int]) -> str:
    """[0, 1, 2, 5] -> '0-2 and 5'."""
    parts, start = [], None
    indices = sorted(indices)
    for i, value in enumerate(indices):
        if start is None:
            start = value
        if i + 1 == len(indices) or indices[i + 1] != value + 1:
            parts.append(f"{start}" if start == value else f"{start}-{value}")
            start = None
    return ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]


def _plural(name: str, count: int) -> str:
    if count == 1:
        return name
    if name.endswith("x"):
        return name + "es"
    return name + "s"


_FACTORS = [
    (2.0**-30, "1/2**30 (bytes counted in GiB)"),
    (2.0**-20, "1/2**20 (bytes counted in MiB)"),
    (1e-9, "1e-9 (bytes counted in GB)"),
    (1e-6, "1e-6 (bytes counted in MB)"),
    (2.0, "2"),
    (0.5, "1/2"),
    (2 * math.pi, "2 pi"),
    (1 / (2 * math.pi), "1/(2 pi)"),
    (math.pi, "pi"),
    (1 / math.pi, "1/pi"),
    (180 / math.pi, "180/pi (degrees instead of radians)"),
    (math.pi / 180, "pi/180 (radians read as degrees)"),
    (4.0, "4"),
    (0.25, "1/4"),
    (10.0, "10"),
    (0.1, "1/10"),
    (8.0, "8"),
    (0.125, "1/8"),
]


def _name_factor(c: float, n: int, size: str) -> str:
    for value, name in [
        (math.sqrt(n), f"sqrt({size}) = {math.sqrt(n):.4g}"),
        (1 / math.sqrt(n), f"1/sqrt({size}) = {1 / math.sqrt(n):.4g}"),
        (float(n), f"{size} = {n}"),
        (1 / n, f"1/{size} = 1/{n}"),
    ]:
        if n > 1 and abs(c - value) <= 1e-6 * abs(value) and value not in (2.0, 0.5, 4.0, 0.25):
            return name
    for value, name in _FACTORS:
        if abs(c - value) <= 1e-6 * value:
            return name
    return f"{c:.6g}"


Cases = list[tuple[np.ndarray, np.ndarray, tuple]]
