"""Relations that map a wrong answer onto the expected result, true on every failing case.

Of the whole array: negated, a constant factor or offset, squared, root, reciprocal, one minus,
transposed, reversed, the last axis permuted (interleaved vs halves), values from other indices,
rows shifted; and of its shape (more or fewer rows, an axis missing). Used by
:func:`helpers.exercises._diagnose.diagnose` (every checker, notebooks 02-18).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ._compare import (
    _FACTORS,
    MARGIN,
    MATCH,
    Cases,
    Diagnosis,
    FailedCase,
    _holds,
    _name_factor,
    _same,
    _scale,
)


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
