"""Exercise-specific views of an answer, declared by a checker in a line or two.

Rotary answers seen as the lengths of their pairs and the angles they turned by (with the angle
rules a learner may have written instead), frequencies as implied bases or wavelengths, and any
formula with one knob turned (:func:`knob_view`). Used by the checkers of notebooks 03-18 through
:func:`helpers.exercises._diagnose.diagnose`.
"""

from __future__ import annotations

import itertools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ._compare import (
    MARGIN,
    MATCH,
    FailedCase,
    View,
    _clearly_differ,
    _diff,
    _same,
    _scale,
)


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
