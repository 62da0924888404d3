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

The parts live in four modules, all re-exported here: ``_compare`` (cases, declarations,
tolerances, wording), ``_relations`` (relations of the whole array and of its shape), ``_parts``
(which part matches) and ``_views`` (rotary angles, bases, wavelengths, a knob turned).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ._compare import (  # noqa: F401 (re-exported: every name stays importable from here)
    _FACTORS,
    MARGIN,
    MATCH,
    PART_MARGIN,
    Cases,
    Diagnosis,
    FailedCase,
    View,
    _clearly_differ,
    _diff,
    _holds,
    _name_factor,
    _plural,
    _ranges,
    _same,
    _scale,
)
from ._parts import (  # noqa: F401
    _axis_splitter,
    _classify,
    _describe_split,
    _on_the_rest,
    _pair_splitter,
    _part_statement,
    _region_statement,
    _square_regions,
)
from ._relations import (  # noqa: F401
    _DEFAULT_AXES,
    _INDEX_MAPS,
    _axis_name,
    _common_factor,
    _common_offset,
    _factor_of,
    _familiar,
    _few,
    _find_permutation,
    _index_map,
    _interleaved_to_half,
    _named_permutation,
    _shape_relation,
    _structural,
    _whole,
)
from ._views import (  # noqa: F401
    _angle_models,
    _follows,
    _gives,
    _rule_explainer,
    base_view,
    knob_view,
    rotary_angles,
    rotary_pairs,
    rotary_views,
    wavelength_view,
)

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
