"""Hints from the difference itself: what relates a wrong answer to the expected one.

When no registered :class:`~helpers.exercises._core.Mistake` matches, the runner hands every
failing case (the learner's array and the expected one, of the same shape) to :func:`diagnose`.
It tries, in order, a list of simple relations and returns the first that holds on **every**
failing case, phrased for the learner:

1. close but beyond the tolerance (round-off size);
2. relations of the whole array: negated, a constant factor (2, 1/2, 2 pi, 180/pi, sqrt(d), ...),
   a constant offset, squared, square root, reciprocal, transposed, reversed along an axis, the
   last axis permuted (interleaved vs halves, partners swapped), values taken from other indices
   (your k is the expected 2k, k + 1, ...), rows shifted along an axis;
3. the same relations on the checker's own views (rotary: the angle each pair turned by, modulo
   2 pi; frequencies: the implied wavelengths; ...);
4. which part matches and which differs (features, positions, pairs, masked vs unmasked entries,
   the diagonal, ...), with a relation on the differing part when one holds.

Robustness: a relation holds when the answer is within ``1e-5`` of the transformed expected
array (relative to its largest magnitude), and it is only named when the transformed array is
*clearly* different from the expected one (more than ``1e-3`` relative) on what it compares, so
that round-off never decides a hint and no hint describes what the right answer also does. A part
"matches" within ``1e-5`` and "differs" by more than ``1e-3``; any entry in between and no
partial statement is made. Signs are never read from values that are zero.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

__all__ = [
    "Diagnosis",
    "FailedCase",
    "View",
    "base_view",
    "diagnose",
    "knob_view",
    "rotary_angles",
    "rotary_views",
    "smallest_case",
    "wavelength_view",
]

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


# ------------------------------------------------------------------------------ relations


Cases = list[tuple[np.ndarray, np.ndarray, tuple]]


def _whole(  # noqa: C901 (one line per relation)
    cases: Cases, names: tuple[str, ...], spec: Diagnosis, period: float | None
) -> str:
    """The first relation of the whole array that holds on every case, or ''."""
    floats = all(g.dtype != bool for g, _, _ in cases)
    boolean = not floats

    if boolean:
        if _holds(cases, lambda g, e, a: (g, ~e, e)):
            return "True and False are swapped everywhere: the mask's polarity is inverted"
    else:
        if _holds(cases, lambda g, e, a: (g, -e, e), period):
            return "the expected ones with the opposite sign"
        if period is None and _holds(cases, lambda g, e, a: (g, 1 - e, e)):
            binary = all(np.all((e == 0) | (e == 1)) for _, e, _ in cases)
            return "one minus the expected ones" + (
                ": your 0s and 1s are exchanged" if binary else ""
            )
        if _holds(cases, lambda g, e, a: (g, np.zeros_like(e), e), period):
            return "zero everywhere"
        factor = _common_factor(cases, spec, period)
        if factor:
            return factor
        offset = _common_offset(cases, period)
        if offset:
            return offset
        if period is None:
            if _holds(cases, lambda g, e, a: (g, e**2, e)):
                return "the expected ones squared"
            if _holds(cases, lambda g, e, a: (g, np.sqrt(e), e) if np.all(e >= 0) else None):
                return "the square roots of the expected ones"
            if _holds(cases, lambda g, e, a: (g, 1 / e, e) if np.all(e != 0) else None):
                return "the reciprocals (1/x) of the expected ones"
            for value, name in _FACTORS:
                if _holds(
                    cases, lambda g, e, a, v=value: (g, v / e, e) if np.all(e != 0) else None
                ):
                    return f"{name} divided by the expected ones"
    return _structural(cases, names, spec, period)


def _factor_of(got: np.ndarray, expected: np.ndarray, period: float | None) -> float | None:
    """The least-squares factor c in got = c * expected; modulo a period, a familiar one."""
    if period is not None:
        for value, _name in _FACTORS:
            if _same(got, value * expected, _scale(expected), period):
                return value
        return None
    denominator = float(np.sum(expected * expected))
    return None if denominator == 0 else float(np.sum(got * expected)) / denominator


def _familiar(c: float) -> bool:
    return any(abs(c - v) <= 1e-6 * v for v, _ in _FACTORS)


def _common_factor(cases: Cases, spec: Diagnosis, period: float | None) -> str:
    found = [_factor_of(got, expected, period) for got, expected, _ in cases]
    if None in found:
        return ""
    if not found or any(
        abs(c - 1) < MARGIN or (abs(c) < MARGIN and not _familiar(c)) for c in found
    ):
        return ""
    for (got, expected, _), c in zip(cases, found, strict=True):
        if not _same(got, c * expected, _scale(c * expected), period):
            return ""
    sizes = [e.shape[-1] if e.ndim else 1 for _, e, _ in cases]
    for power, words in (
        (0.5, f"sqrt({spec.size})"),
        (-0.5, f"1/sqrt({spec.size})"),
        (1, spec.size),
        (-1, f"1/{spec.size}"),
    ):
        if (len(set(sizes)) > 1 or len(cases) == 1) and all(
            n > 1 and abs(c - n**power) <= 1e-6 * n**power
            for c, n in zip(found, sizes, strict=True)
        ):
            return f"the expected ones times {words} (the last axis' length {spec.size})"
    names = {_name_factor(c, n, spec.size) for c, n in zip(found, sizes, strict=True)}
    familiar = all(any(abs(c - v) <= 1e-6 * v for v, _ in _FACTORS) for c in found)
    if len(names) == 1 and (familiar or len(cases) > 1 or not _few(cases)):
        return f"the expected ones times {names.pop()}"
    if _few(cases):
        return ""  # a single number is always some factor times another: say nothing
    per_case = ", ".join(f"{c:.4g}" for c in found)
    return f"the expected ones times a factor that changes from case to case ({per_case})"


def _common_offset(cases: Cases, period: float | None) -> str:
    if any(np.ptp(e) <= MARGIN * _scale(e) for _, e, _ in cases if e.size):
        return ""  # a constant expected array: an offset would say nothing about the shape
    offsets = []
    for got, expected, _ in cases:
        delta = float(np.median(got - expected))
        scale = _scale(expected)
        if abs(delta) <= MARGIN * scale or not _same(got, expected + delta, scale, period):
            return ""
        offsets.append(delta)
    if not offsets:
        return ""
    if len(offsets) > 1 and max(offsets) - min(offsets) <= MATCH * max(abs(o) for o in offsets):
        return f"the expected ones plus {offsets[0]:.6g}"
    if _few(cases):
        return ""  # a single number is always another plus something: say nothing
    if max(offsets) - min(offsets) <= MATCH * max(abs(o) for o in offsets):
        return f"the expected ones plus {offsets[0]:.6g}"
    return "the expected ones plus a constant that changes from case to case"


def _few(cases: Cases) -> bool:
    """True when some case has fewer than 3 non-zero expected entries: a fitted factor or
    offset says nothing there."""
    return any(np.count_nonzero(e) < 3 for _, e, _ in cases)


_DEFAULT_AXES = ("column", "row", "matrix")  # last axis first


def _shape_relation(cases: Sequence[FailedCase], names: tuple[str, ...]) -> str:
    """For answers of the wrong shape: transposed, or some entries missing or extra."""
    wrong = [c for c in cases if c.got.shape != c.expected.shape]
    if all(
        c.got.ndim >= 2
        and c.expected.ndim >= 2
        and _same(c.got, np.swapaxes(c.expected, -1, -2), _scale(c.expected))
        for c in wrong
    ):
        return "your result is the expected one transposed (the last two axes exchanged)."
    if all(c.got.size == c.expected.size and c.got.size for c in wrong) and all(
        _same(c.got.reshape(c.expected.shape), c.expected, _scale(c.expected)) for c in wrong
    ):
        return "your values are right, in the right order, but reshaped: keep the expected shape."
    if all(c.got.ndim == c.expected.ndim for c in wrong):
        axes = {
            tuple(i for i in range(c.got.ndim) if c.got.shape[i] != c.expected.shape[i])
            for c in wrong
        }
        if len(axes) == 1 and len(axis := axes.pop()) == 1:
            (i,) = axis
            c = wrong[0]
            name = _axis_name(names, i - c.got.ndim, c.got.ndim) if names else f"axis {i}"
            longer = {c.got.shape[i] > c.expected.shape[i] for c in wrong}
            example = f"{c.got.shape[i]} instead of {c.expected.shape[i]} on {c.label}"
            where = (
                "on every failing case"
                if len(wrong) == len(cases)
                else f"on {len(wrong)} of the {len(cases)} failing cases"
            )
            if longer == {True}:
                return f"you return more {name}s than expected {where} ({example})."
            if longer == {False}:
                return f"you return fewer {name}s than expected {where} ({example})."
    return ""


def _axis_name(names: tuple[str, ...], axis: int, ndim: int) -> str:
    """Name of axis ``axis`` (negative) given the trailing axis names."""
    if -axis <= len(names):
        return names[axis]
    return f"axis {ndim + axis}"


def _structural(cases: Cases, names: tuple[str, ...], spec: Diagnosis, period: float | None) -> str:
    named = _named_permutation(cases, period, generic=False)  # halves, partners exchanged
    if named:
        return named
    ndim = cases[0][1].ndim
    if ndim == 0:
        return ""
    # transposed (square last two axes)
    if ndim >= 2 and _holds(
        cases,
        lambda g, e, a: (g, np.swapaxes(e, -1, -2), e) if e.shape[-1] == e.shape[-2] else None,
        period,
    ):
        first, second = _axis_name(names, -2, ndim), _axis_name(names, -1, ndim)
        return f"the expected ones transposed ({first}s and {second}s exchanged)"
    for axis in range(-1, -ndim - 1, -1):
        name = _axis_name(names, axis, ndim)
        if _holds(cases, lambda g, e, a, ax=axis: (g, np.flip(e, ax), e), period):
            return f"the expected ones in reverse order along the {name}s"
        if max(e.shape[axis] for _, e, _ in cases) < 4:
            continue  # too short to tell one index map from another
        for got_step, exp_step, offset, words in _INDEX_MAPS:
            if _holds(cases, _index_map(axis, got_step, exp_step, offset), period):
                return words.format(name=name)
    return _named_permutation(cases, period, generic=True)  # the last axis in another order


# (got index step, expected index step, expected offset, words): got[step_g * m] = e[step_e * m + o]
_INDEX_MAPS = [
    (1, 1, 1, "shifted by one along the {name}s: your {name} m is the expected {name} m + 1"),
    (1, 1, -1, "shifted by one along the {name}s: your {name} m is the expected {name} m - 1"),
    (1, 1, 2, "shifted by two along the {name}s: your {name} m is the expected {name} m + 2"),
    (1, 1, -2, "shifted by two along the {name}s: your {name} m is the expected {name} m - 2"),
    (1, 2, 0, "taken from other indices: your {name} m holds the expected {name} 2m"),
    (2, 1, 0, "taken from other indices: your {name} 2m holds the expected {name} m"),
]


def _index_map(axis: int, got_step: int, exp_step: int, offset: int):
    def relation(g: np.ndarray, e: np.ndarray, a: tuple):
        n = e.shape[axis]
        ms = [m for m in range(n) if 0 <= got_step * m < n and 0 <= exp_step * m + offset < n]
        if not ms and n <= 2:
            return "skip"  # nothing to compare on so short an axis: this case says nothing
        if not ms or len(ms) * 2 < n - 1:
            return None
        gi = [got_step * m for m in ms]
        ei = [exp_step * m + offset for m in ms]
        same_place = np.take(e, gi, axis=axis)
        return np.take(g, gi, axis=axis), np.take(e, ei, axis=axis), same_place

    return relation


def _interleaved_to_half(d: int) -> np.ndarray:
    return np.r_[np.arange(0, d, 2), np.arange(1, d, 2)]


def _named_permutation(cases: Cases, period: float | None, generic: bool) -> str:
    def even(e):
        return e.shape[-1] % 2 == 0 and e.shape[-1] >= 4

    to_half = _interleaved_to_half
    if _holds(
        cases, lambda g, e, a: (g, e[..., to_half(e.shape[-1])], e) if even(e) else None, period
    ):
        return (
            "the expected values in another order along the last axis: your layout is "
            "[all even-indexed features, all odd-indexed ones] (halves) where interleaved pairs "
            "(2k, 2k+1) are expected"
        )
    if _holds(
        cases,
        lambda g, e, a: (g, e[..., np.argsort(to_half(e.shape[-1]))], e) if even(e) else None,
        period,
    ):
        return (
            "the expected values in another order along the last axis: your layout interleaves "
            "pairs (2k, 2k+1) where the halves layout (k, k + d/2) is expected"
        )
    if _holds(
        cases,
        lambda g, e, a: (
            (g, e[..., np.arange(e.shape[-1]) ^ 1], e) if e.shape[-1] % 2 == 0 else None
        ),
        period,
    ):
        if all(e.shape[-1] == 2 for _, e, _ in cases):
            return "the expected values with the two columns exchanged"
        return "the expected values with the two elements of every pair (2k, 2k+1) exchanged"
    if not generic:
        return ""
    # any other permutation of the last axis, found column by column
    perms = []
    for got, expected, _ in cases:
        perm = _find_permutation(got, expected, period)
        if perm is None:
            return ""
        perms.append(perm)
    if perms and all(len(p) == len(perms[0]) and p == perms[0] for p in perms):
        shown = ", ".join(str(p) for p in perms[0][:12])
        return (
            "the expected values in another order along the last axis: your entries "
            f"0, 1, 2, ... are the expected entries {shown}"
        )
    return ""


def _find_permutation(got: np.ndarray, expected: np.ndarray, period: float | None):
    n = expected.shape[-1]
    if n < 2 or n > 256:
        return None
    scale = _scale(expected)
    perm = []
    for j in range(n):
        matches = [i for i in range(n) if _same(got[..., j], expected[..., i], scale, period)]
        if len(matches) != 1:
            return None
        perm.append(matches[0])
    if sorted(perm) != list(range(n)) or perm == list(range(n)):
        return None
    return perm


# ------------------------------------------------------------------------------ parts


def _part_statement(  # noqa: C901 (one loop per candidate axis)
    cases: list[FailedCase],
    names: tuple[str, ...],
    spec: Diagnosis,
    period: float | None,
    transform: Callable[[np.ndarray, tuple], np.ndarray] | None = None,
) -> str:
    """'features 0-7 match, features 8-15 differ' when true on every failing case."""
    arrays = []
    for case in cases:
        g, e = case.got, case.expected
        if transform is not None:
            g, e = transform(g, case.args), transform(e, case.args)
        arrays.append((g, e, case))
    ndim = arrays[0][1].ndim
    candidates: list[tuple[str, Callable]] = []
    for axis in range(-1, -ndim - 1, -1):
        candidates.append((_axis_name(names, axis, ndim), _axis_splitter(axis)))
    if spec.pairs and transform is None and ndim >= 1:
        candidates.insert(1, ("pair", _pair_splitter))
    for name, splitter in candidates:
        statements = []
        for g, e, case in arrays:
            split = splitter(g, e, period)
            if split is None:
                break
            matching, differing = split
            statements.append((matching, differing, case))
        else:
            text = _describe_split(name, statements)
            if text:
                return text
    if spec.regions is not None and transform is None:
        text = _region_statement(cases, spec, period)
        if text:
            return text
    return ""


def _classify(g: np.ndarray, e: np.ndarray, scale: float, period: float | None) -> str:
    if g.dtype == bool or e.dtype == bool:
        return "match" if np.array_equal(g.astype(bool), e.astype(bool)) else "differ"
    d = _diff(g, e, period)
    if np.all(d <= MATCH * scale):
        return "match"
    if np.any(d > PART_MARGIN * scale):
        return "differ"
    return "unclear"


def _axis_splitter(axis: int):
    def split(g: np.ndarray, e: np.ndarray, period: float | None):
        n = e.shape[axis]
        if n < 2:
            return None
        scale = _scale(e) if e.dtype != bool else 1.0
        kinds = [
            _classify(np.take(g, i, axis=axis), np.take(e, i, axis=axis), scale, period)
            for i in range(n)
        ]
        if "unclear" in kinds or "match" not in kinds or "differ" not in kinds:
            return None
        return [i for i, k in enumerate(kinds) if k == "match"], [
            i for i, k in enumerate(kinds) if k == "differ"
        ]

    return split


def _pair_splitter(g: np.ndarray, e: np.ndarray, period: float | None):
    if e.shape[-1] % 2 or e.shape[-1] < 4:
        return None
    shape = (*e.shape[:-1], e.shape[-1] // 2, 2)
    return _axis_splitter(-2)(g.reshape(shape), e.reshape(shape), period)


def _describe_split(name: str, statements: list) -> str:
    def one(matching, differing):
        m = f"{_plural(name, len(matching))} {_ranges(matching)} {'match' if len(matching) > 1 else 'matches'}"
        d = f"{_plural(name, len(differing))} {_ranges(differing)} {'differ' if len(differing) > 1 else 'differs'}"
        return f"{m}, {d}"

    texts = {one(m, d) for m, d, _ in statements}
    if len(texts) == 1:
        return texts.pop() + (" (on every failing case)" if len(statements) > 1 else "")
    sizes = [len(m) + len(d) for m, d, _ in statements]
    if all(d == [0] for _, d, _ in statements):
        return f"only {name} 0 differs, every other {name} matches (on every failing case)"
    if all(d == [n - 1] for (_, d, _), n in zip(statements, sizes, strict=True)):
        return f"only the last {name} differs, the others match (on every failing case)"
    if all(m == [0] for m, _, _ in statements):
        return f"{name} 0 matches, every other {name} differs (on every failing case)"
    if all(
        m == list(range(n // 2)) and d == list(range(n // 2, n))
        for (m, d, _), n in zip(statements, sizes, strict=True)
    ):
        return (
            f"the first half of the {name}s match, the second half differ (on every failing case)"
        )
    if all(
        d == list(range(n // 2)) and m == list(range(n // 2, n))
        for (m, d, _), n in zip(statements, sizes, strict=True)
    ):
        return (
            f"the first half of the {name}s differ, the second half match (on every failing case)"
        )
    starts = {
        d[0]
        for m, d, _ in statements
        if m == list(range(d[0])) and d == list(range(d[0], d[-1] + 1))
    }
    contiguous = all(
        m == list(range(d[0])) and d[-1] == len(m) + len(d) - 1 for m, d, _ in statements
    )
    if contiguous and len(starts) == 1:
        k = starts.pop()
        return f"{_plural(name, k)} 0-{k - 1} match, from {name} {k} on they differ (on every failing case)"
    matching, differing, case = statements[0]
    return f"on {case.label}: {one(matching, differing)}"


def _region_statement(cases: list[FailedCase], spec: Diagnosis, period: float | None) -> str:
    kinds: dict[str, set] = {}
    order: list[str] = []
    for case in cases:
        regions = spec.regions(case.args, case.expected.shape)
        if not regions:
            return ""  # a failing case without regions: no statement covers every case
        scale = _scale(case.expected) if case.expected.dtype != bool else 1.0
        for name, where in regions:
            if name not in kinds:
                kinds[name] = set()
                order.append(name)
            if np.any(where):
                kinds[name].add(_classify(case.got[where], case.expected[where], scale, period))
    matching = [n for n in order if kinds[n] == {"match"}]
    differing = [n for n in order if kinds[n] == {"differ"}]
    if matching and differing and len(matching) + len(differing) == len(order):
        return f"your entries match {' and '.join(matching)} and differ {' and '.join(differing)}"
    return ""


def _square_regions(args: tuple, shape: tuple) -> list[tuple[str, np.ndarray]]:
    n = shape[-1]
    rows = np.arange(shape[-2])[:, None]
    cols = np.arange(n)[None, :]
    return [
        ("below the diagonal", np.broadcast_to(rows > cols, shape)),
        ("on the diagonal", np.broadcast_to(rows == cols, shape)),
        ("above the diagonal", np.broadcast_to(rows < cols, shape)),
    ]


# ------------------------------------------------------------------------------ main


def diagnose(  # noqa: C901 (the steps in order, each a few lines)
    cases: Sequence[FailedCase],
    spec: Diagnosis | None = None,
    passing: Sequence[FailedCase] = (),
) -> str:
    """The first relation true on every failing case, as a hint sentence; '' when none.

    ``passing`` holds the cases the answer got right (got == expected): a view declared with
    ``every_case`` explains the answer on them too."""
    spec = spec or Diagnosis()
    if any(c.got.shape != c.expected.shape for c in cases):
        return _shape_relation(cases, spec.axes)
    cases = [c for c in cases if c.expected.size]
    if not cases:
        return ""
    if not spec.axes:
        spec = replace(spec, axes=_DEFAULT_AXES[: cases[0].expected.ndim][::-1])
    triples = [(c.got, c.expected, c.args) for c in cases]
    floats = all(c.got.dtype != bool and c.expected.dtype != bool for c in cases)
    if floats and all(np.all(_diff(g, e, None) <= MARGIN * _scale(e)) for g, e, _ in triples):
        worst = max(float(np.max(_diff(g, e, None))) / _scale(e) for g, e, _ in triples)
        return (
            f"your values are close to the expected ones but not within the tolerance: they "
            f"differ by at most {worst:.1e} of the largest value. That is round-off size, e.g. "
            "float32 arithmetic or an approximation: compute in float64 with the exact formula."
        )
    relation = _whole(triples, spec.axes, spec, None)
    if relation:
        return f"your result is {relation}."
    right_views = []
    for view in spec.views:
        viewed = _apply_view(view, triples)
        if viewed is None:
            continue
        if all(_same(g, e, _scale(e), view.period) for g, e, _ in viewed):
            right_views.append(view.name)
            continue
        if view.explain is not None:
            seen = [(g, e, c) for (g, e, _), c in zip(viewed, cases, strict=True)]
            if view.every_case:
                seen += _viewed_passing(view, passing)
            text = view.explain(seen)
            if text:
                return _with_right(right_views) + text
        relation = _whole(viewed, view.axes, spec, view.period)
        if relation:
            return _with_right(right_views) + f"{view.name}: yours are {relation}."
    for view in spec.views:
        if view.name in right_views or not view.parts:
            continue
        try:
            part = _part_statement(cases, view.axes, spec, view.period, view.transform)
        except (ValueError, IndexError, ZeroDivisionError, TypeError):
            part = ""
        if part:
            return _with_right(right_views) + f"{view.name}: {part}."
    part = _part_statement(cases, spec.axes, spec, None)
    square = all(
        c.expected.ndim >= 2 and c.expected.shape[-1] == c.expected.shape[-2] for c in cases
    )
    if not part and square:
        part = _region_statement(cases, Diagnosis(regions=_square_regions), None)
    if part:
        return _with_right(right_views) + part + _on_the_rest(cases) + "."
    if right_views:
        return (
            _with_right(right_views).rstrip("; ")
            + ", but no simple relation was found for the rest."
        )
    return ""


def _viewed_passing(view: View, passing: Sequence[FailedCase]) -> list:
    viewed = _apply_view(view, [(c.got, c.expected, c.args) for c in passing])
    if viewed is None:
        return [(c.got, c.expected, c) for c in passing]  # the view's explain judges them
    return [(g, e, c) for (g, e, _), c in zip(viewed, passing, strict=True)]


def _with_right(names: list[str]) -> str:
    return "".join(f"{name} are right; " for name in names)


def _apply_view(view: View, triples: Cases) -> Cases | None:
    try:
        with np.errstate(all="ignore"):
            viewed = [(view.transform(g, a), view.transform(e, a), a) for g, e, a in triples]
    except (ValueError, IndexError, ZeroDivisionError, TypeError):
        return None
    if not all(v[0].shape == v[1].shape for v in viewed):
        return None
    return viewed


def rotary_pairs(
    x: np.ndarray, layout: str = "interleaved", rotary_dim: int | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The two elements of every rotated pair, (..., r/2) each, for a layout."""
    r = x.shape[-1] if rotary_dim is None else rotary_dim
    if layout == "interleaved":
        return x[..., 0:r:2], x[..., 1:r:2]
    return x[..., : r // 2], x[..., r // 2 : r]


def rotary_angles(
    x: np.ndarray, y: np.ndarray, layout: str = "interleaved", rotary_dim: int | None = None
) -> np.ndarray:
    """The angle each pair of ``x`` turned by to become the pair of ``y`` (radians, (-pi, pi])."""
    x1, x2 = rotary_pairs(np.asarray(x, dtype=np.float64), layout, rotary_dim)
    y1, y2 = rotary_pairs(np.asarray(y, dtype=np.float64), layout, rotary_dim)
    return np.arctan2(x1 * y2 - x2 * y1, x1 * y1 + x2 * y2)


def rotary_views(
    x_of: Callable[[tuple], Any], layout: str = "interleaved", rotary_dim_of=None, params=None
) -> tuple[View, ...]:
    """Two views of a rotary answer: the length of every pair and the angle it turned by."""
    half = "r/2" if rotary_dim_of else "d/2"  # a partial rotation pairs inside its r features
    pairs = "(2k, 2k+1)" if layout == "interleaved" else f"(k, k + {half})"

    def lengths(a: np.ndarray, args: tuple) -> np.ndarray:
        r = rotary_dim_of(args) if rotary_dim_of else None
        first, second = rotary_pairs(a, layout, r)
        return np.hypot(first, second)

    def angles(a: np.ndarray, args: tuple) -> np.ndarray:
        x = np.asarray(x_of(args), dtype=np.float64)
        r = rotary_dim_of(args) if rotary_dim_of else None
        first, second = rotary_pairs(x, layout, r)
        if np.any(np.hypot(first, second) < 1e-6 * _scale(x)):
            raise ValueError("a pair of length 0 has no angle")
        return rotary_angles(x, a, layout, r)

    return (
        View(f"the lengths of your pairs {pairs}", lengths, axes=("position", "pair")),
        View(
            f"the angles by which your pairs {pairs} turned",
            angles,
            period=2 * math.pi,
            axes=("position", "pair"),
            explain=_rule_explainer(params) if params is not None else None,
        ),
    )


def base_view() -> View:
    """Frequencies omega_k read as base**(-2k/d): the base each pair k >= 1 implies."""

    def bases(a: np.ndarray, args: tuple) -> np.ndarray:
        if a.ndim != 1 or a.size < 3 or np.any(a <= 0):
            raise ValueError("not a vector of positive frequencies")
        d = 2 * a.size
        k = np.arange(1, a.size)
        # pair 0 implies no base (omega_0 = 1 for any): 0 when it is 1, so that index k of the
        # view is pair k and a statement about "pair 14" names pair 14
        rest = a[1:] ** (-d / (2 * k))
        first = 0.0 if abs(a[0] - 1) <= 1e-12 else -1.0 - float(np.max(np.abs(rest)))
        return np.concatenate(([first], rest))

    def explain(viewed: list[tuple[np.ndarray, np.ndarray, FailedCase]]) -> str:
        texts = []
        for got, expected, case in viewed:
            got, expected = got[1:], expected[1:]  # pair 0 implies no base
            g0, e0 = float(np.median(got)), float(np.median(expected))
            geometric = np.all(np.abs(got - g0) <= 1e-6 * g0)
            if not (geometric and np.all(np.abs(expected - e0) <= 1e-6 * e0)):
                return ""
            if abs(case.got[0] - 1) > 1e-9:  # omega_0 must be 1 for a base**(-2k/d) rule
                return ""
            if abs(g0 - e0) <= MARGIN * e0:
                return ""
            texts.append(f"{g0:.6g} where {e0:.6g} is expected on {case.label}")
        return (
            "your frequencies follow the rotary rule base**(-2k/d), but with another base: "
            + "; ".join(texts[:2])
            + "."
        )

    return View("the implied bases", bases, axes=("pair",), explain=explain)


def _angle_models(base: float) -> list[tuple[dict, str]]:  # noqa: C901 (one line a knob)
    """Rotary angle rules a learner may have written instead of t * base**(-2k/r)."""
    models = []
    for sign, unit, shift, c, j, hard in itertools.product(
        (1, -1), (1.0, 180 / math.pi), (0, 1, -1), (2, 1, 4, -2, 0), (0, 1), (None, 10000.0)
    ):
        if hard is not None and hard == base:
            continue
        knobs = {"sign": sign, "unit": unit, "shift": shift, "c": c, "j": j, "hard": hard}
        words = []
        if sign == -1:
            words.append(
                "negated: you rotate the other way (the first element gets x1 cos - "
                "x2 sin, the second x1 sin + x2 cos)"
            )
        if unit != 1.0:
            words.append("in degrees (times 180/pi); cos and sin take radians")
        if shift:
            words.append(
                f"those of position t {'+' if shift > 0 else '-'} 1: use the positions as given"
            )
        if c != 2 or j:
            if c == 0 and j:
                continue
            exponent = {2: "-2k/r", 1: "-k/r", 4: "-4k/r = -2k/(r/2)", -2: "+2k/r", 0: "0"}[c]
            if j:
                exponent = exponent.replace("k", "(k+1)")
            words.append(
                f"those of frequencies base**({exponent}); pair k needs "
                "base**(-2k/r), k = 0 .. r/2 - 1, r the number of features that turn"
            )
        if hard is not None:
            words.append("those of base 10000, not the base argument")
        if words:
            models.append((knobs, "; ".join(words)))
    return models


def _rule_explainer(params: Callable[[tuple], tuple[Any, int, float]]):
    """Explain a rotary answer's angles by the first rule of :func:`_angle_models` that gives
    them on every failing case. ``params(args)`` gives the positions, rotated width r, base."""

    def explain(viewed: list) -> str:
        if all(
            np.all(_diff(got, np.zeros_like(got), math.pi) <= MATCH * math.pi)
            and _clearly_differ(expected, np.zeros_like(expected), math.pi, math.pi)
            for got, expected, _ in viewed
        ):
            return (
                "none of your pairs turns: each output pair points along its input pair or the "
                "opposite way (at most its length changes). A rotation mixes the two elements "
                "of a pair: x1 cos - x2 sin and x1 sin + x2 cos."
            )
        for knobs, words in _angle_models(float(params(viewed[0][2].args)[2])):
            if all(_follows(got, case.args, knobs, params) for got, _, case in viewed):
                return f"the angles by which your pairs turned are {words}."
        return ""

    return explain


def _follows(got: np.ndarray, args: tuple, knobs: dict, params) -> bool:
    positions, r, base = params(args)
    if knobs["hard"] is not None and knobs["hard"] == base:
        return False
    k = np.arange(r // 2)
    omega = (knobs["hard"] or base) ** (-knobs["c"] * (k + knobs["j"]) / r)
    t = np.asarray(positions, dtype=np.float64)[:, None] + knobs["shift"]
    model = knobs["sign"] * knobs["unit"] * t * omega
    if model.shape != got.shape[-2:]:
        return False
    return _same(got, np.broadcast_to(model, got.shape), math.pi, 2 * math.pi)


def wavelength_view() -> View:
    """Frequencies seen as wavelengths 2 pi / omega (positions per turn)."""

    def wavelengths(a: np.ndarray, args: tuple) -> np.ndarray:
        if np.any(a == 0):
            raise ValueError("a zero frequency has no wavelength")
        return 2 * math.pi / a

    return View("the implied wavelengths 2 pi / omega", wavelengths, axes=("pair",))


def _on_the_rest(cases: list[FailedCase]) -> str:
    """A relation of the differing entries, when one holds (flattened)."""
    parts = []
    for c in cases:
        if c.got.dtype == bool:
            return ""
        scale = _scale(c.expected)
        bad = _diff(c.got, c.expected, None) > MATCH * scale
        parts.append((c.got[bad], c.expected[bad], c.args))
    if _holds(parts, lambda g, e, a: (g, -e, e)):
        return "; where they differ, yours are the expected values with the opposite sign"
    for value, name in _FACTORS:
        if _holds(parts, lambda g, e, a, v=value: (g, v * e, e)):
            return f"; where they differ, yours are the expected values times {name}"
    if _holds(parts, lambda g, e, a: (g, np.zeros_like(e), e)):
        return "; where they differ, yours are 0"
    return ""


def smallest_case(cases: Sequence[FailedCase]) -> str:
    """'On the smallest failing case, <label>: expected [...], got [...]'."""
    usable = [c for c in cases if c.got.shape == c.expected.shape]
    if not usable:
        return ""
    case = min(usable, key=lambda c: c.expected.size)
    options: dict[str, Any] = {"precision": 4, "suppress_small": True, "threshold": 40}
    if case.expected.size > 40:
        scale = _scale(case.expected) if case.expected.dtype != bool else 1.0
        bad = np.argwhere(_diff(case.got, case.expected, None) > MATCH * scale)
        if case.expected.dtype == bool:
            bad = np.argwhere(case.got != case.expected)
        where = tuple(int(i) for i in bad[0][:-1]) if len(bad) and case.expected.ndim > 1 else ()
        e, g = case.expected[where], case.got[where]
        if e.size > 40:
            e, g = e[..., :16], g[..., :16]
            where_text = f" (index {where}, first 16 entries)" if where else " (first 16 entries)"
        else:
            where_text = f" (index {where})" if where else ""
    else:
        e, g, where_text = case.expected, case.got, ""
    expected = np.array2string(np.asarray(e), **options).replace("\n", "\n      ")
    got = np.array2string(np.asarray(g), **options).replace("\n", "\n      ")
    return (
        f"on the smallest failing case, {case.label}{where_text}:\n"
        f"    expected {expected}\n    got      {got}"
    )


def knob_view(
    model: Callable[..., Any], knobs: dict[str, list[tuple[Any, str]]], pairs: bool = True
) -> View:
    """Explain an answer as the reference formula with one knob (or two) turned.

    ``model(args, **setting)`` computes the formula with some knobs changed; ``knobs`` maps each
    knob to its other values and the words that say what that value means. The first setting
    that gives the answer on every failing case (and differs from the expected result on one)
    is named: a description of *this* answer's formula, not a list of known answers. The
    setting must also give the answer on the cases it passed (``View.every_case``): a setting
    that fits only the failing cases describes another formula."""
    settings = [({k: v}, words) for k, values in knobs.items() for v, words in values]
    if pairs:
        names = list(knobs)
        for a, b in itertools.combinations(range(len(names)), 2):
            for va, wa in knobs[names[a]]:
                for vb, wb in knobs[names[b]]:
                    settings.append(({names[a]: va, names[b]: vb}, f"{wa}, and {wb}"))

    def explain(viewed: list) -> str:
        for setting, words in settings:
            results = [_gives(case, model, setting) for _, _, case in viewed]
            if all(r is not None for r in results) and any(results):
                return f"your result is what the formula gives with {words}."
        return ""

    return View("the formula", lambda a, args: a, explain=explain, every_case=True)


def _gives(case: FailedCase, model: Callable[..., Any], setting: dict) -> bool | None:
    """None: the setting does not give the answer; else whether it clearly differs from the
    expected result (it must on one case at least)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # e.g. a variance over one element
            other = np.asarray(model(case.args, **setting), dtype=np.float64)
    except (ValueError, ZeroDivisionError, OverflowError, IndexError, TypeError):
        return None
    if other.shape != case.got.shape:
        return None
    if not _same(case.got, other, _scale(other)):
        return None
    return _clearly_differ(other, case.expected, _scale(case.expected), None)
