"""The position schemes a learner tries first, and six executable criteria that judge them.

A *scheme* is a function ``encode(positions) -> encodings``: it receives the positions
``0 .. seq_len - 1`` of one sentence as an integer array of shape ``(seq_len,)`` and returns one
vector per position, shape ``(seq_len, dim)`` (a 1-D result counts as ``dim = 1``). Because it
sees the whole sentence, a scheme may depend on the sentence length, as the normalised index does.

The four criteria (Kazemnejad, 2019, restated so that code can check them):

1. :func:`unique_per_position`: no two positions of a sentence share an encoding.
2. :func:`consistent_distance`: a step of ``delta`` positions has the same size wherever it sits
   and in sentences of every length.
3. :func:`bounded_and_length_independent`: values stay in a fixed range (default [-1, 1]) as
   sentences grow, and a position keeps its encoding when the sentence gets longer.
4. :func:`deterministic`: the same positions always get the same encodings.

Two more, which the sinusoidal encoding was designed for (notebooks 03-04):

5. :func:`shift_is_linear`: for each offset ``phi`` one fixed matrix maps every ``e[t]`` to
   ``e[t + phi]`` (least squares; an affine map such as ``t -> t + phi`` does not count).
6. :func:`no_near_collisions`: no two positions come closer than the closest two neighbours.

Each criterion returns a bool and, with ``verbose=True``, prints one line with its reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np

from .._checks import require_int, require_positive_float

__all__ = [
    "index_encoding",
    "normalized_index_encoding",
    "bounded_decreasing_encoding",
    "binary_encoding",
    "single_sine_encoding",
    "random_encoding",
    "unique_per_position",
    "consistent_distance",
    "bounded_and_length_independent",
    "deterministic",
    "shift_is_linear",
    "no_near_collisions",
    "CRITERIA",
    "score_schemes",
    "format_score_table",
]

Scheme = Callable[[np.ndarray], np.ndarray]


def _positions(positions: object) -> np.ndarray:
    """Validate a 1-D array of non-negative integer positions and return it as int64."""
    array = np.asarray(positions)
    if array.ndim != 1 or not np.issubdtype(array.dtype, np.integer):
        raise TypeError(
            "positions must be a 1-D integer array such as np.arange(seq_len), "
            f"got dtype {array.dtype} and shape {array.shape}"
        )
    if array.size and array.min() < 0:
        raise ValueError(f"positions must be non-negative, got minimum {array.min()}")
    return array.astype(np.int64)


# --- the schemes -----------------------------------------------------------------------------


def index_encoding(positions: np.ndarray) -> np.ndarray:
    """The raw index: position ``t`` is encoded as the number ``t``. Shape ``(seq_len, 1)``.

    Derived in notebook 02; compared again in notebook 03.
    """
    t = _positions(positions)
    return t.astype(np.float64)[:, None]


def normalized_index_encoding(positions: np.ndarray) -> np.ndarray:
    """The index scaled to [0, 1] by the sentence: ``t / (seq_len - 1)``. Shape ``(seq_len, 1)``.

    The first word gets 0 and the last gets 1 in every sentence; a one-word sentence gets 0.

    Derived in notebook 02; compared again in notebook 03.
    """
    t = _positions(positions).astype(np.float64)
    last = max(t.size - 1, 1)
    return (t / last)[:, None]


def bounded_decreasing_encoding(positions: np.ndarray) -> np.ndarray:
    """A bounded, decreasing value ``1 / (t + 1)``: 1 at the first word, towards 0 after.

    Shape ``(seq_len, 1)``. (Written with ``t + 1``, so position 0 never divides by zero.)

    Derived in notebook 02; compared again in notebook 03.
    """
    t = _positions(positions).astype(np.float64)
    return (1.0 / (t + 1.0))[:, None]


def binary_encoding(positions: np.ndarray, num_bits: int = 8) -> np.ndarray:
    """The binary code of ``t`` as floats 0.0/1.0, least significant bit first.

    Shape ``(seq_len, num_bits)``; column ``j`` is bit ``j`` and flips every ``2**j`` positions,
    so column 0 changes fastest, like dimension 0 of the sinusoidal encoding. A fixed-width
    counter wraps around: position ``t`` and ``t + 2**num_bits`` get the same code.

    Derived in notebook 02 (an exercise there); compared again in notebook 03.
    """
    t = _positions(positions)
    num_bits = require_int("num_bits", num_bits, minimum=1)
    j = np.arange(num_bits)
    return ((t[:, None] >> j[None, :]) & 1).astype(np.float64)


def single_sine_encoding(positions: np.ndarray, omega: float = 1.0) -> np.ndarray:
    """One sine of angular frequency ``omega``: ``sin(omega * t)``. Shape ``(seq_len, 1)``.

    Derived in notebook 02; compared again in notebook 03.
    """
    t = _positions(positions).astype(np.float64)
    omega = require_positive_float("omega", omega)
    return np.sin(omega * t)[:, None]


def random_encoding(positions: np.ndarray, dim: int = 16) -> np.ndarray:
    """Fresh uniform random vectors in [-1, 1) on every call (a scheme that forgot to be fixed).

    Shape ``(seq_len, dim)``. Draws from NumPy's global generator, so a seeded notebook repeats
    from run to run, but two calls never agree. Derived in notebook 02.
    """
    t = _positions(positions)
    dim = require_int("dim", dim, minimum=1)
    # the legacy global generator on purpose: helpers.seed_everything seeds it
    return np.random.uniform(-1.0, 1.0, size=(t.size, dim))  # noqa: NPY002


# --- the criteria ----------------------------------------------------------------------------


def _table(encode: Scheme, seq_len: int) -> np.ndarray:
    """Call ``encode`` on the positions of a sentence of ``seq_len`` words; return 2-D float64."""
    if not callable(encode):
        raise TypeError(f"encode must be a function positions -> encodings, got {encode!r}")
    values = np.asarray(encode(np.arange(seq_len)), dtype=np.float64)
    if values.ndim == 1:
        values = values[:, None]
    if values.ndim != 2 or values.shape[0] != seq_len:
        raise ValueError(
            f"encode must return one row per position, shape ({seq_len}, dim), "
            f"got shape {values.shape}"
        )
    return values


def _step_sizes(table: np.ndarray, delta: int) -> np.ndarray:
    """Euclidean distances ``|e[t + delta] - e[t]|`` for every valid t."""
    return np.linalg.norm(table[delta:] - table[:-delta], axis=1)


def _distinct(a: float, b: float) -> tuple[str, str]:
    """Format two different numbers with just enough significant digits to tell them apart."""
    for digits in range(3, 16):
        text_a, text_b = f"{a:.{digits}g}", f"{b:.{digits}g}"
        if text_a != text_b:
            return text_a, text_b
    return text_a, text_b


def _report(verbose: bool, name: str, ok: bool, reason: str) -> bool:
    if verbose:
        print(f"{name}: {'yes' if ok else 'NO'} - {reason}")
    return ok


def unique_per_position(
    encode: Scheme, seq_len: int = 512, tol: float = 1e-6, verbose: bool = True
) -> bool:
    """Criterion 1: every pair of positions ``0 .. seq_len-1`` is more than ``tol`` apart.

    ``tol`` (Euclidean distance) is far above float64 round-off and below any spacing a model
    could rely on. Pairs are compared offset by offset (no ``seq_len**2 x dim`` temporary); a
    failure names the clash with the smallest offset, then the smallest position.

    A criterion of notebook 02.
    """
    seq_len = require_int("seq_len", seq_len, minimum=2)
    tol = require_positive_float("tol", tol)
    table = _table(encode, seq_len)
    closest = np.inf
    for delta in range(1, seq_len):
        steps = _step_sizes(table, delta)
        clashes = np.flatnonzero(steps <= tol)
        if clashes.size:
            t = int(clashes[0])
            reason = (
                f"positions {t} and {t + delta} get the same encoding "
                f"(distance {steps[t]:.1e} <= {tol:g})"
            )
            return _report(verbose, "unique per position", False, reason)
        closest = min(closest, float(steps.min()))
    reason = f"the closest two of {seq_len} positions are {closest:.3g} apart"
    return _report(verbose, "unique per position", True, reason)


def consistent_distance(
    encode: Scheme,
    lengths: tuple[int, ...] = (16, 64),
    max_delta: int = 8,
    tol: float = 1e-9,
    verbose: bool = True,
) -> bool:
    """Criterion 2: ``|e[t + delta] - e[t]|`` depends on ``delta`` alone.

    Checked for ``delta = 1 .. max_delta``, at every ``t`` of sentences of each of ``lengths``:
    a step of one word must look the same at the start or the end of a sentence, short or long.

    A criterion of notebook 02.
    """
    if not isinstance(lengths, tuple | list):
        raise TypeError(
            f"lengths must be a tuple of sentence lengths, e.g. (16, 64), got {lengths!r}"
        )
    if not lengths:
        raise ValueError(f"lengths must name at least one sentence length, got {lengths!r}")
    lengths = tuple(require_int("lengths", n, minimum=2) for n in lengths)
    max_delta = require_int("max_delta", max_delta, minimum=1)
    if max_delta >= min(lengths):
        raise ValueError(
            f"max_delta must be smaller than the shortest length {min(lengths)}, got {max_delta}"
        )
    tables = {n: _table(encode, n) for n in sorted(lengths)}
    for delta in range(1, max_delta + 1):
        steps = {n: _step_sizes(table, delta) for n, table in tables.items()}
        n_ref = min(steps)
        reference = steps[n_ref][0]  # the step from t = 0 in the shortest sentence
        for n, sizes in steps.items():
            off = np.flatnonzero(np.abs(sizes - reference) > tol * (1.0 + abs(reference)))
            if off.size:
                t = int(off[0])
                size_ref, size_t = _distinct(reference, sizes[t])
                reason = (
                    f"a step of {delta} has size {size_ref} from t=0 in a sentence of "
                    f"{n_ref} but {size_t} from t={t} in a sentence of {n}"
                )
                return _report(verbose, "consistent distance", False, reason)
    shown = ", ".join(map(str, sorted(lengths)))
    reason = f"steps of 1..{max_delta} have one size each, in sentences of {shown}"
    return _report(verbose, "consistent distance", True, reason)


def bounded_and_length_independent(
    encode: Scheme,
    lengths: tuple[int, ...] = (10, 100, 1000, 10000),
    bound: float = 1.0,
    verbose: bool = True,
) -> bool:
    """Criterion 3: values stay in ``[-bound, bound]`` and a prefix keeps its encodings.

    Passes when every value of sentences of each of ``lengths`` lies in ``[-bound, bound]``
    (a range fixed in advance: the range of the sinusoidal table, and the size of the entries
    of a scaled token embedding), and the first ``n`` rows of every longer sentence equal the
    sentence of ``n`` words. A criterion of notebook 02.
    """
    if len(lengths) < 2:
        raise ValueError(f"lengths must name at least two sentence lengths, got {lengths!r}")
    lengths = tuple(sorted(require_int("lengths", n, minimum=1) for n in lengths))
    bound = require_positive_float("bound", bound)
    tables = [_table(encode, n) for n in lengths]
    largest = [float(np.abs(table).max()) for table in tables]
    if max(largest) > bound:
        shown = ", ".join(f"{v:.4g}" for v in largest)
        reason = (
            f"largest |value| at lengths {', '.join(map(str, lengths))}: {shown} "
            f"(outside [-{bound:g}, {bound:g}])"
        )
        return _report(verbose, "bounded, length-independent", False, reason)
    short = tables[0]
    for n, table in zip(lengths[1:], tables[1:], strict=True):
        differs = np.abs(table[: lengths[0]] - short).max(axis=1) > 1e-12
        if differs.any():
            t = int(np.flatnonzero(differs)[0])
            reason = f"position {t} is encoded differently in sentences of {lengths[0]} and {n}"
            return _report(verbose, "bounded, length-independent", False, reason)
    reason = (
        f"every value in [-{bound:g}, {bound:g}] at lengths up to {lengths[-1]}, prefixes unchanged"
    )
    return _report(verbose, "bounded, length-independent", True, reason)


def deterministic(encode: Scheme, seq_len: int = 50, verbose: bool = True) -> bool:
    """Criterion 4: two calls on the same positions return identical encodings.

    A criterion of notebook 02.
    """
    seq_len = require_int("seq_len", seq_len, minimum=1)
    first, second = _table(encode, seq_len), _table(encode, seq_len)
    ok = bool(np.array_equal(first, second))
    reason = "two calls agree exactly" if ok else "two calls on the same positions disagree"
    return _report(verbose, "deterministic", ok, reason)


def _offsets(offsets: object) -> tuple[int, ...]:
    if not isinstance(offsets, tuple | list) or not offsets:
        raise TypeError(
            f"offsets must be a non-empty tuple of offsets, e.g. (1, 5, 20), got {offsets!r}"
        )
    return tuple(require_int("offsets", phi, minimum=1) for phi in offsets)


def shift_is_linear(
    encode: Scheme,
    seq_len: int = 512,
    offsets: tuple[int, ...] = (1, 5, 20),
    tol: float = 1e-6,
    verbose: bool = True,
) -> bool:
    """Criterion 5: for each offset ``phi`` one fixed matrix ``A`` maps ``e[t]`` to ``e[t + phi]``.

    In one sentence of ``seq_len + max(offsets)`` positions, least squares finds the best ``A``
    with ``e[t] @ A ~ e[t + phi]`` over ``t = 0 .. seq_len - 1``; the criterion passes when every
    relative residual ``|X A - Y| / |Y|`` is below ``tol`` (far above float64 round-off, far
    below any scheme that only approximates a linear shift). The raw index fails: ``t -> t + phi``
    is affine, not linear. Negative offsets follow (``A`` is invertible when it exists).

    A criterion of notebook 02, met by the sinusoidal encoding (lessons 03-04).
    """
    seq_len = require_int("seq_len", seq_len, minimum=2)
    offsets = _offsets(offsets)
    tol = require_positive_float("tol", tol)
    table = _table(encode, seq_len + max(offsets))
    for phi in offsets:
        X, Y = table[:seq_len], table[phi : seq_len + phi]  # (seq_len, dim) each
        A, *_ = np.linalg.lstsq(X, Y, rcond=None)  # (dim, dim): X @ A ~ Y
        miss = float(np.linalg.norm(X @ A - Y))
        scale = float(np.linalg.norm(Y))
        residual = miss / scale if scale > 0 else miss
        if residual >= tol:
            reason = (
                f"the best fixed linear map from e[t] to e[t+{phi}] misses by {residual:.3g} "
                f"of the target's size (over {seq_len} positions)"
            )
            return _report(verbose, "linear shift", False, reason)
    shown = ", ".join(map(str, offsets))
    reason = f"offsets {shown}: one fixed matrix each, residual below {tol:g}"
    return _report(verbose, "linear shift", True, reason)


_TIE_TOLERANCE = 1e-9  # relative: far above round-off, far below any real gap


def no_near_collisions(encode: Scheme, seq_len: int = 512, verbose: bool = True) -> bool:
    """Criterion 6: no two positions of ``0 .. seq_len-1`` are closer than the two closest
    neighbours.

    A model that can tell neighbours apart can then tell every pair apart. Exact repeats
    (criterion 1) are the extreme case; a single (sin, cos) pair at ``omega = 1`` has none, yet
    positions 0 and 6 are 0.28 apart while neighbours are 0.96 apart. Pairs are compared offset
    by offset; a failure names the smallest offset, then the smallest position, that comes too
    close. A criterion of notebook 02, met by the sinusoidal encoding (lesson 03).
    """
    seq_len = require_int("seq_len", seq_len, minimum=3)
    table = _table(encode, seq_len)
    neighbours = float(_step_sizes(table, 1).min())
    # "No farther than" includes "exactly as far" (binary codes: many pairs at distance 1), and
    # an exact tie must not be decided by round-off: compare with a relative tolerance.
    limit = neighbours * (1 + _TIE_TOLERANCE)
    closest = np.inf
    for delta in range(2, seq_len):
        steps = _step_sizes(table, delta)
        close = np.flatnonzero(steps <= limit)
        if close.size:
            t = int(close[0])
            reason = (
                f"positions {t} and {t + delta} are {steps[t]:.3g} apart, no farther than the "
                f"closest neighbours ({neighbours:.3g})"
            )
            return _report(verbose, "no near-collisions", False, reason)
        closest = min(closest, float(steps.min()))
    reason = (
        f"positions two or more apart are at least {closest:.3g} apart, more than the closest "
        f"neighbours ({neighbours:.3g})"
    )
    return _report(verbose, "no near-collisions", True, reason)


CRITERIA: dict[str, Callable[..., bool]] = {
    "unique": unique_per_position,
    "consistent distance": consistent_distance,
    "bounded, length-indep.": bounded_and_length_independent,
    "deterministic": deterministic,
    "linear shift": shift_is_linear,
    "no near-collisions": no_near_collisions,
}
"""The six criteria by short name, in the order of the scoring table."""


def _require_mapping(name: str, value: object, layout: str, at_least: str) -> None:
    """Raise unless ``value`` is a non-empty mapping laid out as ``layout``."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must be a dict {layout}, got {type(value).__name__} {value!r}")
    if not value:
        raise ValueError(f"{name} must hold at least {at_least}")


def score_schemes(schemes: Mapping[str, Scheme]) -> dict[str, dict[str, bool]]:
    """Run every criterion on every scheme (silently): ``{scheme: {criterion: passed}}``.

    Used in notebooks 02 and 03.
    """
    _require_mapping("schemes", schemes, "{name: encode function}", "one name and its function")
    return {
        name: {criterion: check(encode, verbose=False) for criterion, check in CRITERIA.items()}
        for name, encode in schemes.items()
    }


def _header_lines(name: str) -> tuple[str, str]:
    """A column name over two lines, split at the space nearest its middle ("", name if none)."""
    spaces = [i for i, char in enumerate(name) if char == " "]
    if not spaces:
        return "", name
    cut = min(spaces, key=lambda i: (abs(2 * i - len(name)), i))
    return name[:cut], name[cut + 1 :]


def format_score_table(scores: Mapping[str, Mapping[str, bool]]) -> str:
    """A plain-text table of :func:`score_schemes`' result: 'yes'/'no' per criterion.

    Criterion names with a space are written over two header lines, so that six criteria fit a
    projector's width. Used in notebooks 02 and 03.
    """
    _require_mapping(
        "scores", scores, "{scheme: {criterion: passed}} as score_schemes returns", "one scheme"
    )
    criteria = list(next(iter(scores.values())))
    headers = [_header_lines(c) for c in criteria]
    two_lines = any(top for top, _ in headers)
    first = max(len("scheme"), *(len(name) for name in scores))
    widths = [max(len(top), len(bottom), 3) for top, bottom in headers]
    lines = []
    if two_lines:
        tops = [top.ljust(w) for (top, _), w in zip(headers, widths, strict=True)]
        lines.append("  ".join(["".ljust(first), *tops, ""]).rstrip())
    bottoms = [bottom.ljust(w) for (_, bottom), w in zip(headers, widths, strict=True)]
    lines.append("  ".join(["scheme".ljust(first), *bottoms, "passed"]))
    for name, row in scores.items():
        marks = ["yes" if row[c] else "no" for c in criteria]
        passed = sum(row[c] for c in criteria)
        cells = [m.ljust(w) for m, w in zip(marks, widths, strict=True)]
        lines.append("  ".join([name.ljust(first), *cells, f"{passed}/{len(criteria)}"]))
    return "\n".join(lines)
