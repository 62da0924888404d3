"""Which part of a wrong answer matches and which differs, true on every failing case.

"features 0-7 match, features 8-15 differ", "pair 0 matches", "the entries where the mask lets
the query see the key match", "below the diagonal ...", and a relation of the differing entries
when one holds. Used by :func:`helpers.exercises._diagnose.diagnose` (every checker, notebooks
02-18).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ._compare import (
    _FACTORS,
    MATCH,
    PART_MARGIN,
    Diagnosis,
    FailedCase,
    _diff,
    _holds,
    _plural,
    _ranges,
    _scale,
)
from ._relations import _axis_name


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
