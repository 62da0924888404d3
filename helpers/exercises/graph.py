"""Checkers for the graph-encoding exercises of notebook 14: Laplacian eigenvector and
random-walk encodings."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..encodings import laplacian_pe, random_walk_pe
from ._core import Case, CaseFailedError, Mistake, as_numpy, run_checker
from ._diagnose import Diagnosis

__all__ = ["check_laplacian_pe", "check_random_walk_pe"]


def _path(n: int) -> np.ndarray:
    a = np.zeros((n, n))
    a[np.arange(n - 1), np.arange(1, n)] = 1
    return a + a.T


def _random_graph(n: int, p: float, seed: int) -> np.ndarray:
    """A seeded Erdos-Renyi graph as a float64 0/1 matrix (numpy only: no networkx needed)."""
    upper = np.triu(np.random.default_rng(seed).random((n, n)) < p, 1)
    return (upper | upper.T).astype(np.float64)


# (adjacency, k, label): every case has simple eigenvalues 1 .. k+1 (gaps > 1e-3, checked in
# tests), so the answer is unique up to the sign of each column.
_LAPLACIAN_CASES = [
    (_path(5), 2, "a path of 5 nodes, k=2"),
    (_random_graph(8, 0.4, 0), 3, "a random graph of 8 nodes, k=3"),
    (_random_graph(10, 0.3, 3), 4, "a random graph of 10 nodes, k=4"),
    (_random_graph(6, 0.5, 0), 2, "a graph of 6 nodes with an isolated node, k=2"),
]


def _degree_power(a: np.ndarray, power: float) -> np.ndarray:
    degree = a.sum(axis=1)
    return np.where(degree > 0, np.where(degree > 0, degree, 1.0) ** -power, 0.0)


def _normalised(a: np.ndarray) -> np.ndarray:
    d = _degree_power(a, 0.5)
    return np.eye(len(a)) - d[:, None] * a * d[None, :]


def _eigenvectors(matrix: np.ndarray, columns: slice) -> np.ndarray:
    values, vectors = np.linalg.eig(matrix)  # not symmetric in general: general solver
    order = np.argsort(values.real)
    vectors = vectors.real[:, order][:, columns]
    return vectors / np.linalg.norm(vectors, axis=0)


# Each classic mistake is "unit eigenvectors of the wrong matrix, or of the right one for the
# wrong eigenvalues". A learner's eigenvectors have signs (and, where an eigenvalue repeats, a
# basis) that round-off chooses, so a wrong answer is recognised by a property that holds for
# every such choice: each column c is a unit eigenvector of ``matrix(a)`` whose eigenvalue is the
# c-th of ``eigenvalues(a, k)``. The functions below build one such answer (used in tests).


def _unnormalised_matrix(a: np.ndarray) -> np.ndarray:
    return np.diag(a.sum(axis=1)) - a


def _random_walk_matrix(a: np.ndarray) -> np.ndarray:
    return np.eye(len(a)) - _degree_power(a, 1.0)[:, None] * a


def _zero_at_isolated_matrix(a: np.ndarray) -> np.ndarray:
    """networkx's and scipy's convention D^-1/2 (D - A) D^-1/2: L_ii = 0 at an isolated node."""
    d = _degree_power(a, 0.5)
    return d[:, None] * (np.diag(a.sum(axis=1)) - a) * d[None, :]


def _ascending(matrix: np.ndarray) -> np.ndarray:
    return np.sort(np.linalg.eigvals(matrix).real)


def _unnormalised(a: np.ndarray, k: int) -> np.ndarray:
    return _eigenvectors(_unnormalised_matrix(a), slice(1, k + 1))


def _trivial_kept(a: np.ndarray, k: int) -> np.ndarray:
    return _eigenvectors(_normalised(a), slice(0, k))


def _random_walk_laplacian(a: np.ndarray, k: int) -> np.ndarray:
    return _eigenvectors(_random_walk_matrix(a), slice(1, k + 1))


def _zero_at_isolated(a: np.ndarray, k: int) -> np.ndarray:
    return np.linalg.eigh(_zero_at_isolated_matrix(a))[1][:, 1 : k + 1]


def _largest_eigenvalues(a: np.ndarray, k: int) -> np.ndarray:
    return _eigenvectors(_normalised(a), slice(None))[:, ::-1][:, :k]


# (matrix, its eigenvalues the columns must have, hint), in the order they are tried: the
# isolated-node convention before the trivial eigenvector, whose hint would not name the cause
_LAPLACIAN_MISTAKES = [
    (
        _unnormalised_matrix,
        lambda a, k: _ascending(_unnormalised_matrix(a))[1 : k + 1],
        "these are eigenvectors of the unnormalised Laplacian D - A; normalise it: "
        "L = I - D^-1/2 A D^-1/2, so that high-degree nodes do not dominate.",
    ),
    (
        _zero_at_isolated_matrix,
        lambda a, k: _ascending(_zero_at_isolated_matrix(a))[1 : k + 1],
        "an isolated node needs L_ii = 1: use I - D^-1/2 A D^-1/2. The form "
        "D^-1/2 (D - A) D^-1/2 (networkx's and scipy's) gives L_ii = 0 there, a second "
        "zero eigenvalue.",
    ),
    (
        _normalised,
        lambda a, k: _ascending(_normalised(a))[:k],
        "your first column is the trivial eigenvector (eigenvalue 0, proportional to "
        "sqrt(degree)): it says nothing about position. Drop it and take the next k.",
    ),
    (
        _random_walk_matrix,
        lambda a, k: _ascending(_random_walk_matrix(a))[1 : k + 1],
        "these are eigenvectors of I - D^-1 A (D^-1 on one side only): that matrix is not "
        "symmetric and its eigenvectors are not orthogonal. Put D^-1/2 on both sides.",
    ),
    *(
        (
            _normalised,
            order,
            "you took the eigenvectors of the largest eigenvalues; the encoding uses the "
            "smallest ones (the smoothest patterns on the graph), after the first. "
            "np.linalg.eigh returns them in ascending order.",
        )
        for order in (  # largest first ([::-1][:k]) or in ascending order ([-k:])
            lambda a, k: _ascending(_normalised(a))[::-1][:k],
            lambda a, k: _ascending(_normalised(a))[-k:],
        )
    ),
]
_EIGEN_TOL = 1e-4  # residuals and eigenvalues: float32 answers pass, the cases' gaps are > 1e-3


def _columns_are_eigenvectors(got: np.ndarray, matrix: np.ndarray, values: np.ndarray) -> bool:
    """Whether each column of ``got`` is a unit eigenvector of ``matrix`` for the matching entry
    of ``values``: true for either sign and any basis of a repeated eigenvalue's eigenspace."""
    if got.shape[1] != len(values) or not np.all(np.isfinite(got)):
        return False
    norms = np.linalg.norm(got, axis=0)  # (k,)
    residual = np.linalg.norm(matrix @ got - got * values, axis=0)  # (k,)
    return bool(np.all(np.abs(norms - 1) < _EIGEN_TOL) and np.all(residual < _EIGEN_TOL))


def _align_signs(result: object, args: tuple) -> object:
    """Flip each column of the learner's result to agree in sign with the expected column (an
    eigenvector's sign is arbitrary, so either sign passes); where it is not the expected answer
    but one of the classic mistakes, fail with that mistake's hint."""
    try:
        got = as_numpy(result)
    except (ValueError, TypeError, RuntimeError):
        return result  # not an array: the comparison reports what came back
    expected = laplacian_pe(*args)
    if got.dtype.kind not in "biuf" or got.ndim != 2 or got.shape[0] != expected.shape[0]:
        return result  # the comparison reports the dtype or the shape
    got = got.astype(np.float64)
    aligned = got
    if got.shape == expected.shape:
        # flip only columns clearly pointing the other way (dot product below -1/2): a column
        # nearly orthogonal to the expected one keeps the learner's sign, never round-off's
        aligned = got * np.where(np.sum(got * expected, axis=0) < -0.5, -1.0, 1.0)  # (N, k)
        if np.allclose(aligned, expected, rtol=0, atol=_EIGEN_TOL):
            return aligned
    a, k = args
    for matrix, eigenvalues, hint in _LAPLACIAN_MISTAKES:
        if _columns_are_eigenvectors(got, matrix(a), eigenvalues(a, k)):
            if got.shape != expected.shape:
                raise CaseFailedError(f"expected shape {expected.shape}, got {got.shape}.", hint)
            raise CaseFailedError(
                "your columns are eigenvectors, but not the ones asked for.", hint, detail=True
            )
    return aligned  # the comparison shows the first difference, with the generic hint


def check_laplacian_pe(fn: Callable[[np.ndarray, int], object]) -> bool:
    """Check ``fn(adjacency, k)`` -> ``(N, k)`` unit eigenvectors of ``I - D^-1/2 A D^-1/2`` for
    the 2nd to the (k+1)-th smallest eigenvalues (:func:`helpers.encodings.laplacian_pe`); each
    column may have either sign. Used in notebook 14."""
    cases = [Case((a, k), laplacian_pe(a, k), label) for a, k, label in _LAPLACIAN_CASES]
    return run_checker(
        "check_laplacian_pe",
        fn,
        cases,
        extract=_align_signs,
        generic_hint="build D^-1/2 with 0 for isolated nodes (no division by zero), form "
        "L = I - D^-1/2 A D^-1/2 (so L_ii = 1 at an isolated node), then np.linalg.eigh(L) and "
        "the columns 1 .. k.",
        diagnosis=Diagnosis(axes=("node", "eigenvector")),
    )


# --- random-walk encoding -------------------------------------------------------------------------

# k differs from N in every case, so that a transposed answer fails on its shape
_RANDOM_WALK_CASES = [
    (_path(4), 3, "a path of 4 nodes, k=3"),
    (_random_graph(8, 0.4, 0), 5, "a random graph of 8 nodes, k=5"),
    (_random_graph(6, 0.5, 0), 4, "a graph of 6 nodes with an isolated node, k=4"),
]


def _walk_powers(matrix: np.ndarray, first: int, k: int) -> np.ndarray:
    """Diagonals of ``matrix ** first`` .. ``matrix ** (first + k - 1)``, as columns."""
    powers = [np.linalg.matrix_power(matrix, j) for j in range(first, first + k)]
    return np.stack([np.diag(p) for p in powers], axis=1)


def _transition(a: np.ndarray) -> np.ndarray:
    return _degree_power(a, 1.0)[:, None] * a  # D^-1 A, 0 rows for isolated nodes


def _from_step_zero(a: np.ndarray, k: int) -> np.ndarray:
    return _walk_powers(_transition(a), 0, k)


def _closed_walk_counts(a: np.ndarray, k: int) -> np.ndarray:
    return _walk_powers(a, 1, k)


def _from_step_two(a: np.ndarray, k: int) -> np.ndarray:
    return _walk_powers(_transition(a), 2, k)


def _elementwise_power(a: np.ndarray, k: int) -> np.ndarray:
    p = _transition(a)
    return np.stack([np.diag(p**j) for j in range(1, k + 1)], axis=1)  # all 0: P's diagonal is 0


def _lazy_walk(a: np.ndarray, k: int) -> np.ndarray:
    return _walk_powers((np.eye(len(a)) + _transition(a)) / 2, 1, k)


def _transposed(a: np.ndarray, k: int) -> np.ndarray:
    return random_walk_pe(a, k).T


_ISOLATED_HINT = (
    "a walk from an isolated node cannot move: give D^-1 a 0 there, not a division by zero "
    "(which makes NaN)."
)


def _isolated_nan(result: object, args: tuple) -> object:
    """Fail with the isolated-node hint when NaN or inf appear on a graph with an isolated node
    (the cases before it have none and passed, so a division by zero there is the cause; the
    NaN then spreads to every row through the matrix powers); other NaN fail without a hint."""
    try:
        got = as_numpy(result)
    except (ValueError, TypeError, RuntimeError):
        return result
    if got.dtype.kind != "f" or np.all(np.isfinite(got)):
        return result
    if np.any(args[0].sum(axis=1) == 0):
        raise CaseFailedError("your answer holds NaN or inf.", _ISOLATED_HINT)
    raise CaseFailedError("your answer holds NaN or inf.")


def check_random_walk_pe(fn: Callable[[np.ndarray, int], object]) -> bool:
    """Check ``fn(adjacency, k)`` -> ``(N, k)``, column ``j`` the diagonal of ``(D^-1 A)^(j+1)``
    (:func:`helpers.encodings.random_walk_pe`); rows of isolated nodes are 0.

    Used in notebook 14.
    """
    cases = [Case((a, k), random_walk_pe(a, k), label) for a, k, label in _RANDOM_WALK_CASES]
    mistakes = [
        Mistake(
            _from_step_zero,
            "your first column is all ones: that is step 0, where every walk is at its start. "
            "Column j is the return probability after j + 1 steps.",
        ),
        Mistake(
            _closed_walk_counts,
            "these are counts of closed walks, the diagonal of A^j: divide each row of A by "
            "the node's degree first (D^-1 A), so that the entries are probabilities.",
        ),
        Mistake(
            _from_step_two,
            "your columns are one step late: column 0 is the return probability after 1 step "
            "(always 0 without self-loops).",
        ),
        Mistake(
            _elementwise_power,
            "P ** j raises each entry to a power; a walk of j steps needs the matrix power "
            "(np.linalg.matrix_power(P, j), or P @ P @ ...).",
        ),
        Mistake(
            _lazy_walk,
            "this is a lazy walk, (I + P) / 2, which stays put half the time; the encoding's "
            "walk moves at every step: P = D^-1 A.",
        ),
        Mistake(
            _transposed,
            "your answer is transposed: one row per node, one column per walk length.",
        ),
    ]
    return run_checker(
        "check_random_walk_pe",
        fn,
        cases,
        mistakes,
        extract=_isolated_nan,
        generic_hint="P = D^-1 A (rows of isolated nodes 0); column j is the diagonal of "
        "P^(j+1), the matrix power, for j = 0 .. k-1.",
        diagnosis=Diagnosis(axes=("node", "step")),
    )
