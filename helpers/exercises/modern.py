"""Checkers for the modern-encoding exercises: relative offsets, RoPE and ALiBi (notebook 11),
next-token accuracy by position (notebook 12), NTK-aware rotary frequencies and the size of a
key/value cache (notebook 15)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch

from ..encodings import (
    alibi_slopes,
    apply_rotary,
    interleaved_to_half_permutation,
    relative_positions,
    rotary_frequencies,
    scaled_rotary_frequencies,
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

__all__ = [
    "check_relative_positions",
    "check_rotary",
    "check_alibi_slopes",
    "check_accuracy_by_position",
    "check_ntk_frequencies",
    "check_kv_cache_bytes",
]


# --- hints chosen from what the answer gets wrong -------------------------------------------------

_TOLERANCE = _Tolerance(rtol=1e-5, atol=1e-5)  # run_checker's default, used by these checkers
Diagnosis = Callable[[np.ndarray, tuple, np.ndarray], str]


def _diagnosing(
    reference: Callable[..., object], mistakes: list[Mistake], diagnose: Diagnosis
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
            raise CaseFailedError(f"expected shape {expected.shape}, got {array.shape}.", hint)
        raise CaseFailedError(_first_difference(array, expected, _TOLERANCE), hint, detail=True)

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
    return (
        f"entry (i, j) is clip(j - i, -max_distance, max_distance): write out the table for "
        f"len_q={len_q}, len_k={len_k}, max_distance={max_distance} by hand and compare."
    )


def check_relative_positions(fn: Callable[[int, int, int], object]) -> bool:
    """Check ``fn(len_q, len_k, max_distance)`` -> ``clip(j - i, -max_distance, max_distance)``.

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
    return (
        "each pair is rotated, but by the wrong angle: pair k at position t turns by "
        "t * omega_k with omega_k = 10000**(-2k/d) (multiply the positions by omega_k; "
        "for d = 4, omega = 1 and 0.01)."
    )


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
    )


# --- next-token accuracy by position (notebook 12) -----------------------------------------------


def _accuracy_cases() -> list[Case]:
    generator = torch.Generator().manual_seed(12)
    cases = []
    for num, length, vocab in [(5, 6, 5), (16, 12, 16), (3, 40, 7)]:
        tokens = torch.randint(0, vocab, (num, length), generator=generator)
        # A decent "model": logits favour the true next token, with some random noise.
        logits = torch.randn(num, length, vocab, generator=generator, dtype=torch.float64)
        logits[:, :-1] += 1.5 * torch.nn.functional.one_hot(tokens[:, 1:], vocab)
        cases.append(
            Case(
                (logits, tokens),
                _accuracy_by_position(logits, tokens),
                f"logits of shape {(num, length, vocab)}",
            )
        )
    return cases


def _accuracy_by_position(logits: torch.Tensor, tokens: torch.Tensor) -> torch.Tensor:
    """Reference: accuracy of predicting ``tokens[:, t]`` from ``logits[:, t - 1]``, t >= 2."""
    predictions = logits[:, 1:-1].argmax(dim=-1)  # guesses for x_2 .. x_{length-1}
    return (predictions == tokens[:, 2:]).double().mean(dim=0)  # (length - 2,)


def _hits(logits: torch.Tensor, tokens: torch.Tensor, guess: slice, target: slice) -> torch.Tensor:
    """(num, positions): does the argmax of ``logits[:, guess]`` equal ``tokens[:, target]``?"""
    return (logits[:, guess].argmax(dim=-1) == tokens[:, target]).double()


# Wrong answers a learner writes, each named by what its output gets wrong. The checker names a
# mistake only when the learner's output equals that mistake's output on the failing case.
def _not_shifted(logits, tokens):  # output at t compared with token t
    return _hits(logits, tokens, slice(2, None), slice(2, None)).mean(dim=0)


def _own_input_token(logits, tokens):  # output at t compared with token t, for t = 1 .. L-2
    return _hits(logits, tokens, slice(1, -1), slice(1, -1)).mean(dim=0)


def _shifted_twice(logits, tokens):  # output at t - 2 compared with token t
    return _hits(logits, tokens, slice(None, -2), slice(2, None)).mean(dim=0)


def _previous_token(logits, tokens):  # output at t + 1 compared with token t
    return _hits(logits, tokens, slice(2, None), slice(1, -1)).mean(dim=0)


def _from_t_one(logits, tokens):  # right alignment, but targets from t = 1
    return _hits(logits, tokens, slice(None, -1), slice(1, None)).mean(dim=0)


def _over_positions(logits, tokens):  # averaged over the positions, one number per sequence
    return _hits(logits, tokens, slice(1, -1), slice(2, None)).mean(dim=1)


def _not_averaged(logits, tokens):  # hits per sequence and position
    return _hits(logits, tokens, slice(1, -1), slice(2, None))


def _summed(logits, tokens):  # counts instead of shares
    return _hits(logits, tokens, slice(1, -1), slice(2, None)).sum(dim=0)


def _probability_of_truth(logits, tokens):  # the probability given to the true token
    probabilities = torch.softmax(logits[:, 1:-1], dim=-1)
    return probabilities.gather(-1, tokens[:, 2:, None]).squeeze(-1).mean(dim=0)


_ALIGNMENT = "the guess for tokens[:, t] sits at logits[:, t - 1]: compare logits[:, 1:-1] "
_ALIGNMENT += "with tokens[:, 2:]."


def check_accuracy_by_position(fn: Callable[[torch.Tensor, torch.Tensor], object]) -> bool:
    """Check ``fn(logits, tokens)`` -> next-token accuracy for targets ``t = 2 .. length - 1``.

    ``logits (num, length, vocab)`` are a causal model's outputs, ``logits[:, t]`` its guess for
    ``tokens[:, t + 1]``; the result has shape ``(length - 2,)``, averaged over sequences.

    The exercise of notebook 12.
    """
    mistakes = [
        Mistake(
            _not_shifted,
            "you compared logits[:, t] with tokens[:, t]: a causal model's output at t is its "
            "guess for the NEXT token, so compare logits[:, t - 1] with tokens[:, t].",
        ),
        Mistake(
            _own_input_token,
            "you compared each output with the token it READ (logits[:, 1:-1] with "
            "tokens[:, 1:-1]); the output at t guesses the NEXT token: " + _ALIGNMENT,
        ),
        Mistake(_shifted_twice, "the predictions are shifted by two: " + _ALIGNMENT),
        Mistake(
            _previous_token,
            "you compared the output at t + 1 with token t, the output after the token "
            "instead of before it: " + _ALIGNMENT,
        ),
        Mistake(
            _from_t_one,
            "the alignment is right, but the targets start at t = 1: the result covers "
            "t = 2 .. length - 1 (drop the first one).",
        ),
        Mistake(
            _over_positions,
            "you averaged over the positions (dim 1), giving one number per sequence: "
            "average over the sequences (dim 0) so each position keeps its accuracy.",
        ),
        Mistake(
            _not_averaged,
            "you returned the hit of every sequence: average over the sequences (dim 0).",
        ),
        Mistake(
            _summed,
            "you counted the hits: divide by the number of sequences (take the mean over "
            "dim 0), so each entry is a share between 0 and 1.",
        ),
        Mistake(
            _probability_of_truth,
            "you averaged the probability of the true token: accuracy counts whether the "
            "argmax (the model's guess) equals the token.",
        ),
    ]
    return run_checker(
        "check_accuracy_by_position",
        fn,
        _accuracy_cases(),
        mistakes,
        generic_hint="for each t = 2 .. length - 1, take the argmax of logits[:, t - 1] over "
        "the vocabulary, compare it with tokens[:, t], and average over the sequences.",
    )


# --- NTK-aware rotary frequencies (notebook 15) ---------------------------------------------------

_NTK_ARGS = [(8, 2.0, 10000.0), (16, 4.0, 10000.0), (64, 8.0, 10000.0), (32, 3.0, 500.0)]


def _ntk_frequencies(d: int, factor: float, base: float) -> torch.Tensor:
    return scaled_rotary_frequencies(d, "ntk", factor, base)[0]


def _ntk_exponent_inverted(d: int, factor: float, base: float) -> torch.Tensor:
    return rotary_frequencies(d, base * factor ** ((d - 2) / d))


def _ntk_as_interpolation(d: int, factor: float, base: float) -> torch.Tensor:
    return rotary_frequencies(d, base) / factor


def _ntk_base_times_factor(d: int, factor: float, base: float) -> torch.Tensor:
    return rotary_frequencies(d, base * factor)


def _ntk_dimension_index(d: int, factor: float, base: float) -> torch.Tensor:
    new_base = base * factor ** (d / (d - 2))
    i = torch.arange(d // 2, dtype=torch.float64)  # the pair index used as a dimension index
    return new_base ** (-i / d)


def _ntk_base_fixed(d: int, factor: float, base: float) -> torch.Tensor:
    return _ntk_frequencies(d, factor, 10000.0)


def check_ntk_frequencies(fn: Callable[[int, float, float], object]) -> bool:
    """Check ``fn(d, factor, base)`` -> NTK-aware frequencies ``(base * factor**(d/(d-2)))**(-2k/d)``
    (:func:`~helpers.encodings.scaled_rotary_frequencies` with ``method="ntk"``).

    The exercise of notebook 15.
    """
    cases = cases_from(
        _ntk_frequencies,
        _NTK_ARGS,
        lambda d, factor, base: f"d={d}, factor={factor}, base={base:g}",
    )
    mistakes = [
        Mistake(
            _ntk_exponent_inverted,
            "the exponent is d / (d - 2), not (d - 2) / d: it is chosen so that the slowest "
            "pair, k = d/2 - 1, is slowed down by exactly the factor.",
        ),
        Mistake(
            _ntk_as_interpolation,
            "dividing every frequency by the factor is position interpolation; NTK-aware "
            "scaling changes the base, so the fast pairs stay almost as they were.",
        ),
        Mistake(
            _ntk_base_times_factor,
            "multiplying the base by the factor alone slows the slowest pair by less than the "
            "factor: raise the factor to the power d / (d - 2) first.",
        ),
        Mistake(
            _ntk_base_fixed,
            "use the argument base: one case has base 500, not 10000.",
        ),
        Mistake(
            _ntk_dimension_index,
            "omega_k uses the pair index k with exponent -2k/d (k = 0 .. d/2 - 1), not -k/d.",
        ),
    ]
    return run_checker(
        "check_ntk_frequencies",
        fn,
        cases,
        mistakes,
        generic_hint="the first frequency is 1 and the last is the unscaled last one / factor.",
    )


# --- key/value cache size (notebook 15) -----------------------------------------------------------

# num_layers, num_heads, 2 and bytes_per_value all differ within each case, and bytes_per_value
# is never 2 or 4, so that each mistake (a factor dropped, 2 bytes hard-coded) gives its own
# number; LLaMA-2-7B is left out: it is the next exercise's answer
_KV_CACHE_ARGS = [
    (3, 5, 16, 100, 1),
    (5, 6, 8, 7, 8),
    (12, 8, 64, 1024, 1),
]


def _kv_cache_bytes(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    # keys and values (2), each (num_heads, num_tokens, d_head) per layer
    return 2 * num_layers * num_heads * d_head * num_tokens * bytes_per_value


def _kv_cache_keys_only(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return num_layers * num_heads * d_head * num_tokens * bytes_per_value


def _kv_cache_one_layer(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 2 * num_heads * d_head * num_tokens * bytes_per_value


def _kv_cache_no_heads(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 2 * num_layers * d_head * num_tokens * bytes_per_value


def _kv_cache_two_bytes(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 2 * num_layers * num_heads * d_head * num_tokens * 2


def _kv_cache_bits(
    num_layers: int, num_heads: int, d_head: int, num_tokens: int, bytes_per_value: int
) -> int:
    return 8 * _kv_cache_bytes(num_layers, num_heads, d_head, num_tokens, bytes_per_value)


def check_kv_cache_bytes(fn: Callable[[int, int, int, int, int], object]) -> bool:
    """Check ``fn(num_layers, num_heads, d_head, num_tokens, bytes_per_value)`` -> the bytes
    of one sequence's key/value cache, ``2 * num_layers * num_heads * d_head * num_tokens *
    bytes_per_value``.

    The exercise of notebook 15.
    """
    cases = cases_from(
        _kv_cache_bytes,
        _KV_CACHE_ARGS,
        "num_layers={}, num_heads={}, d_head={}, num_tokens={}, bytes_per_value={}".format,
    )
    mistakes = [
        Mistake(
            _kv_cache_keys_only,
            "the cache holds keys AND values: two tensors per layer, so a factor 2.",
        ),
        Mistake(
            _kv_cache_one_layer,
            "every layer caches its own keys and values: multiply by num_layers.",
        ),
        Mistake(
            _kv_cache_no_heads,
            "every head caches its own keys and values: multiply by num_heads.",
        ),
        Mistake(
            _kv_cache_two_bytes,
            "use the argument bytes_per_value, not a fixed 2 bytes (float16): the cases vary it.",
        ),
        Mistake(
            _kv_cache_bits,
            "bytes_per_value is already in bytes: do not multiply by 8.",
        ),
    ]
    return run_checker(
        "check_kv_cache_bytes",
        fn,
        cases,
        mistakes,
        generic_hint="one number per layer, per key or value, per head, per token, per head "
        "dimension, times the bytes of one number.",
    )
