"""Checkers for the exercises of notebook 11 (relative and rotary): the clipped relative-offset
table, rotary embeddings and ALiBi's slopes."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from ..encodings import (
    alibi_slopes,
    apply_rotary,
    interleaved_to_half_permutation,
    relative_positions,
)
from ._core import (
    Case,
    CaseFailedError,
    Mistake,
    _first_difference,
    _named_mistake,
    _to_array,
    _Tolerance,
    as_numpy,
    cases_from,
    run_checker,
)
from ._diagnose import Diagnosis, rotary_views

__all__ = ["check_relative_positions", "check_rotary", "check_alibi_slopes"]


# --- hints chosen from what the answer gets wrong -------------------------------------------------

_TOLERANCE = _Tolerance(rtol=1e-5, atol=1e-5)  # run_checker's default, used by these checkers
CaseDiagnosis = Callable[[np.ndarray, tuple, np.ndarray], str]


def _diagnosing(
    reference: Callable[..., object], mistakes: list[Mistake], diagnose: CaseDiagnosis
) -> Callable[[object, tuple], object]:
    """An ``extract`` for :func:`run_checker` that picks the hint from the learner's output.

    A right answer, or one that matches a known mistake, goes on unchanged (the runner passes
    it, or names the mistake). Any other wrong answer fails here with the hint that
    ``diagnose(got, args, expected)`` returns: it tests properties of ``got`` (shape, position
    0, pair lengths, ...) and names only those that really fail.
    """

    def extract(got: object, args: tuple) -> object:
        expected = as_numpy(reference(*args))
        array = _to_array(got, expected)  # raises the runner's own message for odd types
        if _TOLERANCE.same(array, expected):
            return got
        if _named_mistake(array, Case(args, expected, ""), mistakes, _TOLERANCE):
            return got
        hint = diagnose(array.astype(np.float64), args, expected.astype(np.float64))
        if array.shape != expected.shape:
            raise CaseFailedError(
                f"expected shape {expected.shape}, got {array.shape}.", hint, array=array
            )
        raise CaseFailedError(
            _first_difference(array, expected, _TOLERANCE), hint, detail=True, array=array
        )

    return extract


def _same(a: np.ndarray, b: np.ndarray) -> bool:
    return _TOLERANCE.same(a, np.asarray(b, dtype=np.float64))


# --- relative offsets (Shaw et al. 2018) -------------------------------------------------------

_RELATIVE_ARGS = [(3, 6, 1), (4, 4, 2), (5, 3, 10), (6, 6, 0), (1, 5, 3)]


def _offsets_i_minus_j(len_q: int, len_k: int, max_distance: int) -> torch.Tensor:
    return -relative_positions(len_q, len_k, max_distance)


def _offsets_not_clipped(len_q: int, len_k: int, max_distance: int) -> torch.Tensor:
    return torch.arange(len_k)[None, :] - torch.arange(len_q)[:, None]


def _offsets_shifted_to_indices(len_q: int, len_k: int, max_distance: int) -> torch.Tensor:
    return relative_positions(len_q, len_k, max_distance) + max_distance


def _diagnose_relative(got: np.ndarray, args: tuple, expected: np.ndarray) -> str:
    len_q, len_k, max_distance = args
    if got.shape != expected.shape:
        if got.shape == (len_k, len_q):
            return (
                f"your table is transposed: one row per query (len_q = {len_q}) and one column "
                f"per key (len_k = {len_k}), shape (len_q, len_k)."
            )
        return (
            f"the table has one row per query and one column per key: shape (len_q, len_k) = "
            f"({len_q}, {len_k}); use both lengths."
        )
    if max_distance == 0:
        return "max_distance = 0 clips every offset to 0: the whole table is 0."
    if _same(got, np.abs(expected)):
        return (
            "offsets are signed: a key before its query (j < i) has a negative offset j - i; "
            "yours are distances |j - i|."
        )
    if not np.array_equal(got[1:, 1:], got[:-1, :-1]):
        return (
            "each entry must depend only on j - i, so every diagonal of the table holds one "
            "value; yours changes along a diagonal."
        )
    return _offsets_hint(got, len_q, len_k, max_distance)


def _offsets_hint(got: np.ndarray, len_q: int, len_k: int, max_distance: int) -> str:
    """Hint for a Toeplitz table of the right shape: shifted, or clipped at the wrong place."""
    offsets = np.arange(len_k)[None, :] - np.arange(len_q)[:, None]  # (L_q, L_k): j - i
    for shift in range(-len_q - len_k, len_q + len_k + 1):
        if shift and _same(got, np.clip(offsets - shift, -max_distance, max_distance)):
            if shift == len_k - len_q:
                return (
                    "you placed the queries at the last len_q key positions (end-aligned, as "
                    "with a key cache); here queries and keys both count from 0: query i sits "
                    "at position i, so entry (0, 0) is 0."
                )
            return (
                f"every offset is shifted by {-shift}: count query and key positions both from "
                "0, so that the diagonal i == j holds 0."
            )
    if _same(got, np.minimum(offsets, max_distance)):
        return "clip both sides: offsets below -max_distance must become -max_distance too."
    if _same(got, np.maximum(offsets, -max_distance)):
        return "clip both sides: offsets above max_distance must become max_distance too."
    for limit in range(len_q + len_k + 1):
        if _same(got, np.clip(offsets, -limit, limit)):
            return (
                f"you clip at -{limit} and +{limit}; the offsets are clipped at "
                f"-max_distance and +max_distance, here {max_distance}."
            )
    return ""  # nothing specific: the runner's own diagnosis takes over


def check_relative_positions(fn: Callable[[int, int, int], object]) -> bool:
    """Check ``fn(len_q, len_k, max_distance)`` -> ``clip(j - i, -max_distance, max_distance)``
    as integers (floats fail: the offsets are indices into a table).

    The exercise of notebook 11.
    """
    cases = cases_from(
        relative_positions,
        _RELATIVE_ARGS,
        lambda len_q, len_k, clip: f"len_q={len_q}, len_k={len_k}, max_distance={clip}",
    )
    mistakes = [
        Mistake(
            _offsets_i_minus_j,
            "the signs are flipped: the entry for query i and key j is j - i (a key to the "
            "right of the query has a positive offset).",
        ),
        Mistake(
            _offsets_not_clipped,
            "the offsets are not clipped: limit them to [-max_distance, max_distance], e.g. "
            "with .clamp(-max_distance, max_distance).",
        ),
        Mistake(
            _offsets_shifted_to_indices,
            "you returned row indices (offset + max_distance); the table should hold the "
            "signed offsets themselves, 0 on the diagonal.",
        ),
    ]
    return run_checker(
        "check_relative_positions",
        fn,
        cases,
        mistakes,
        extract=_diagnosing(relative_positions, mistakes, _diagnose_relative),
        diagnosis=Diagnosis(axes=("query", "key")),
        returns="integer",
    )


# --- rotary embeddings ---------------------------------------------------------------------------


def _rotary_cases() -> list[Case]:
    generator = torch.Generator().manual_seed(11)
    shapes_positions = [
        ((5, 4), torch.arange(5)),
        ((3, 8), torch.tensor([0, 7, 100])),
        ((2, 6, 16), torch.arange(6)),
        ((4, 64), torch.tensor([1, 2, 30, 500])),
    ]
    cases = []
    for shape, positions in shapes_positions:
        x = torch.randn(*shape, generator=generator, dtype=torch.float64)
        cases.append(
            Case(
                (x, positions),
                apply_rotary(x, positions),
                f"x of shape {shape}, positions {positions.tolist()}",
            )
        )
    return cases


def _rotary_with_frequencies(x: torch.Tensor, positions: torch.Tensor, omega: torch.Tensor):
    """Interleaved rotation with the given frequencies, for the wrong-frequency mistakes."""
    angles = positions.to(torch.float64)[:, None] * omega  # (seq_len, d/2)
    cos, sin = angles.cos(), angles.sin()
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * cos - odd * sin
    out[..., 1::2] = even * sin + odd * cos
    return out


def _half_layout(x, positions):
    return apply_rotary(x, positions, layout="half")


def _half_angles_on_interleaved_pairs(x, positions):
    """The layout mix-up of real code: angles laid out in halves, pairs rotated interleaved."""
    d = x.shape[-1]
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = 10000.0 ** (-2.0 * k / d)
    angles = positions.to(torch.float64)[:, None] * torch.cat([omega, omega])  # (seq_len, d)
    even, odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = even * angles[:, 0::2].cos() - odd * angles[:, 0::2].sin()
    out[..., 1::2] = even * angles[:, 1::2].sin() + odd * angles[:, 1::2].cos()
    return out


def _dimension_index_exponent(x, positions):
    d = x.shape[-1]
    i = torch.arange(0, d, 2, dtype=torch.float64)  # 2k used where k belongs
    return _rotary_with_frequencies(x, positions, 10000.0 ** (-2.0 * i / d))


def _missing_factor_two(x, positions):
    d = x.shape[-1]
    k = torch.arange(d // 2, dtype=torch.float64)
    return _rotary_with_frequencies(x, positions, 10000.0 ** (-k / d))


def _opposite_direction(x, positions):
    return apply_rotary(x, -positions)


def _positions_from_one(x, positions):
    return apply_rotary(x, positions + 1)


def _pair_lengths(x: np.ndarray) -> np.ndarray:
    return np.hypot(x[..., 0::2], x[..., 1::2])  # (..., seq_len, d/2)


def _diagnose_rotary(got: np.ndarray, args: tuple, expected: np.ndarray) -> str:
    x, positions = args
    x, t = x.numpy(), positions.numpy()
    if got.shape != expected.shape:
        return (
            f"keep the shape of x, {tuple(x.shape)}: pick the pairs with x[..., 0::2] and "
            "x[..., 1::2], so that any leading (batch) dimensions pass through unchanged."
        )
    magnitude = float(np.abs(expected).max())
    if np.allclose(got, expected, rtol=1e-3, atol=1e-3 * magnitude):
        return (
            "close, but not within the tolerance: compute in float64 throughout (float32 "
            "angles lose digits at large positions) and look for a stray scale factor."
        )
    if _same(got, expected[..., interleaved_to_half_permutation(x.shape[-1]).numpy()]):
        return (
            "the values are right but in the wrong places: write each rotated pair back to "
            "dimensions (2k, 2k+1), out[..., 0::2] and out[..., 1::2], not concatenated as "
            "[all first elements, all second elements]."
        )
    if x.ndim > 2:  # the cases without leading dimensions come first, and passed
        return (
            "the cases without leading dimensions pass, this one fails: each leading "
            "dimension is a batch dimension, and row t of every batch element turns by "
            "positions[t] * omega_k."
        )
    at_zero = t == 0  # (seq_len,)
    zero_moved = bool(at_zero.any()) and not _same(got[..., at_zero, :], x[..., at_zero, :])
    lengths_changed = not _same(_pair_lengths(got), _pair_lengths(x))
    if zero_moved and lengths_changed:
        return (
            "position 0 must leave x unchanged (angle 0: cos = 1, sin = 0), and a rotation "
            "keeps the length of every pair (2k, 2k+1); yours does neither."
        )
    if zero_moved:
        return (
            "position 0 must leave x unchanged (angle 0: cos = 1, sin = 0), and yours moves "
            "it: check which terms get the cos and which the sin."
        )
    if lengths_changed:
        return (
            "every pair (2k, 2k+1) must keep its length, and yours does not: compute both new "
            "elements from the old values (updating x[..., 0::2] in place feeds the new first "
            "element into the second), with the cos and sin of one angle."
        )
    # from here on every pair keeps its length and position 0 stays: a rotation, wrong angles
    if _same(got, x):
        return "you return x unchanged: rotate each pair (2k, 2k+1) by positions[t] * omega_k."
    if _same(got, apply_rotary(args[0], torch.arange(x.shape[-2])).numpy()):
        return (
            "you ignore the positions argument: row t turns by positions[t] * omega_k, and the "
            "positions need not be 0, 1, 2, ..."
        )
    return _angle_hint(x, got)


def _angle_hint(x: np.ndarray, got: np.ndarray) -> str:
    """Hint for an answer that rotates every pair, by angles other than t * omega_k."""
    angle = np.arctan2(  # the angle each pair turned by, (seq_len, d/2)
        x[..., 0::2] * got[..., 1::2] - x[..., 1::2] * got[..., 0::2],
        x[..., 0::2] * got[..., 0::2] + x[..., 1::2] * got[..., 1::2],
    )
    first_pair = np.broadcast_to(angle[..., :1], angle.shape)
    if _same(np.cos(angle), np.cos(first_pair)) and _same(np.sin(angle), np.sin(first_pair)):
        return (
            "every pair turns by the same angle: pair k needs its own frequency "
            "omega_k = 10000**(-2k/d), so that the pairs turn at different speeds."
        )
    return ""  # nothing specific: the runner's own diagnosis (the angles) takes over


def check_rotary(fn: Callable[[torch.Tensor, torch.Tensor], object]) -> bool:
    """Check ``fn(x, positions)`` against :func:`helpers.encodings.apply_rotary` (interleaved).

    ``x`` is a float64 tensor ``(..., seq_len, d)``, ``positions`` a long tensor ``(seq_len,)``.

    The exercise of notebook 11; used again in notebook 13.
    """
    mistakes = [
        Mistake(
            _half_layout,
            "you paired dimension k with k + d/2 (the 'rotate_half' layout); this exercise "
            "uses the paper's interleaved pairs (2k, 2k+1).",
        ),
        Mistake(
            _half_angles_on_interleaved_pairs,
            "your angle table is laid out in halves, [omega_0 .. omega_{d/2-1}, omega_0 .. "
            "omega_{d/2-1}] (the 'rotate_half' convention), but you rotate interleaved pairs "
            "(2k, 2k+1), so the two elements of a pair turn by different angles. Give both "
            "elements of pair k the same angle t * omega_k (repeat_interleave, not cat).",
        ),
        Mistake(
            _dimension_index_exponent,
            "the exponent uses the dimension index 2k where the pair index k belongs: "
            "omega_k = base**(-2k / d) for k = 0 .. d/2 - 1.",
        ),
        Mistake(
            _missing_factor_two,
            "the exponent is k / d; it should be 2k / d, so that the slowest pair turns "
            "about base times slower than the fastest.",
        ),
        Mistake(
            _opposite_direction,
            "you rotate the other way: the first element of a pair becomes "
            "x_2k cos - x_2k+1 sin, the second x_2k sin + x_2k+1 cos.",
        ),
        Mistake(
            _positions_from_one,
            "the angles are one position too far: use the positions as given (the first "
            "row of the default positions is t = 0, where nothing rotates).",
        ),
    ]
    return run_checker(
        "check_rotary",
        fn,
        _rotary_cases(),
        mistakes,
        extract=_diagnosing(apply_rotary, mistakes, _diagnose_rotary),
        diagnosis=Diagnosis(
            axes=("position", "feature"),
            pairs=True,
            views=rotary_views(
                lambda args: args[0],
                params=lambda args: (args[1].numpy(), args[0].shape[-1], 10000.0),
            ),
        ),
    )


# --- ALiBi slopes --------------------------------------------------------------------------------

_ALIBI_HEADS = [8, 1, 4, 16, 12, 6, 24]


def _power_rule_everywhere(num_heads: int) -> torch.Tensor:
    h = torch.arange(1, num_heads + 1, dtype=torch.float64)
    return 2.0 ** (-8.0 / num_heads * h)


def _starting_at_one(num_heads: int) -> torch.Tensor:
    return torch.cat((torch.ones(1, dtype=torch.float64), alibi_slopes(num_heads)[:-1].double()))


def _reversed_slopes(num_heads: int) -> torch.Tensor:
    return alibi_slopes(num_heads).flip(0)


def _negative_slopes(num_heads: int) -> torch.Tensor:
    return -alibi_slopes(num_heads)


def _geometric_slopes(n: int) -> np.ndarray:
    return 2.0 ** (-8.0 / n * np.arange(1, n + 1))  # the paper's rule for n a power of two


def _diagnose_alibi(got: np.ndarray, args: tuple, expected: np.ndarray) -> str:
    (n,) = args
    if got.shape != expected.shape:
        return f"return one slope per head: shape ({n},)."
    if np.all(got <= 0):
        return "slopes are positive; the minus sign belongs to the bias -m * (i - j)."
    half = n // 2
    if n & (n - 1) == 0 and n > 1:
        fill_in = np.r_[_geometric_slopes(half), _geometric_slopes(n)[0::2][:half]]
        if _same(got, fill_in):
            return (
                f"{n} is a power of two: use the geometric sequence 2**(-8/{n}), "
                f"2**(-16/{n}), ..., 2**(-8); the fill-in rule is only for other head counts."
            )
    if _same(np.sort(got), np.sort(expected)):
        return (
            "you have the right slopes in the wrong order: first the slopes of the largest "
            "power of two p below num_heads, then every other slope of 2p heads, in that "
            "order (not sorted)."
        )
    if n & (n - 1) == 0:
        return _power_of_two_hint(got, n)
    return _fill_in_hint(got, n)


def _power_of_two_hint(got: np.ndarray, n: int) -> str:
    """Hint for a wrong answer at a power of two: the paper's geometric sequence."""
    first = 2.0 ** (-8.0 / n)
    if not _same(got[:1], [first]):
        return f"for {n} heads the first slope is 2**(-8/{n}) = {first:.4g}."
    if not _same(got[1:] / got[:-1], np.full(n - 1, first)):
        return (
            f"the slopes form a geometric sequence whose ratio is the first slope: "
            f"2**(-8/{n}), 2**(-16/{n}), ..., 2**(-8)."
        )
    return f"for {n} heads the slopes are 2**(-8/{n}), 2**(-16/{n}), ..., 2**(-8)."


def _fill_in_hint(got: np.ndarray, n: int) -> str:
    """Hint for a wrong answer at another head count: the rule of the authors' code."""
    p = 2 ** (n.bit_length() - 1)  # the largest power of two below n
    if not _same(got[:p], _geometric_slopes(p)):
        return (
            f"{n} is not a power of two: in the authors' code the first {p} slopes are those "
            f"of {p} heads (the largest power of two below {n}), 2**(-8/{p}), ..., 2**(-8)."
        )
    rest, twice = got[p:], _geometric_slopes(2 * p)
    if _same(rest, twice[: n - p]):
        return f"take every other slope of {2 * p} heads ([0::2]), not consecutive ones."
    if _same(rest, _geometric_slopes(p)[: n - p]):  # == twice[1::2][: n - p]
        return (
            f"your last {n - p} slopes repeat the first ones (every other slope of {2 * p} "
            f"heads, starting from the second); take every other slope starting from the "
            f"first ([0::2]): 2**(-4/{p}), 2**(-12/{p}), ..., which fall between the first ones."
        )
    return (
        f"the last {n - p} heads take every other slope of {2 * p} heads, starting with the "
        f"first: 2**(-4/{p}), 2**(-12/{p}), ..."
    )


def check_alibi_slopes(fn: Callable[[int], object]) -> bool:
    """Check ``fn(num_heads)`` against ALiBi's slopes (:func:`alibi_slopes`): the paper's
    geometric rule for powers of two, the authors' code for other head counts.

    The exercise of notebook 11.
    """
    cases = cases_from(alibi_slopes, [(n,) for n in _ALIBI_HEADS], lambda n: f"num_heads={n}")
    mistakes = [
        Mistake(
            _power_rule_everywhere,
            "the power-of-two formula is right for 1, 2, 4, 8, 16 heads, but the authors' "
            "code (not the paper) treats other head counts differently: take the slopes of "
            "the largest power of two p below num_heads, then every other slope of 2p heads "
            "for the rest.",
        ),
        Mistake(
            _starting_at_one,
            "the first slope is 2**(-8/num_heads), not 1: the sequence starts at the ratio.",
        ),
        Mistake(_reversed_slopes, "the slopes should decrease from head 0 to the last head."),
        Mistake(
            _negative_slopes,
            "slopes are positive; the minus sign belongs to the bias -m * (i - j).",
        ),
    ]
    return run_checker(
        "check_alibi_slopes",
        fn,
        cases,
        mistakes,
        extract=_diagnosing(alibi_slopes, mistakes, _diagnose_alibi),
        diagnosis=Diagnosis(axes=("head",)),
    )
