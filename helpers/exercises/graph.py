"""Checkers for the graph-encoding exercises of notebook 14: Laplacian eigenvector and
random-walk encodings."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..encodings import laplacian_pe, random_walk_pe
from ._core import Case, Mistake, as_numpy, run_checker

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


def _eigenvectors(matrix: np.ndarray, columns: slice) -> np.ndarray:
    values, vectors = np.linalg.eig(matrix)  # not symmetric in general: general solver
    order = np.argsort(values.real)
    vectors = vectors.real[:, order][:, columns]
    return vectors / np.linalg.norm(vectors, axis=0)


def _unnormalised(a: np.ndarray, k: int) -> np.ndarray:
    return _eigenvectors(np.diag(a.sum(axis=1)) - a, slice(1, k + 1))


def _trivial_kept(a: np.ndarray, k: int) -> np.ndarray:
    d = _degree_power(a, 0.5)
    return _eigenvectors(np.eye(len(a)) - d[:, None] * a * d[None, :], slice(0, k))


def _random_walk_laplacian(a: np.ndarray, k: int) -> np.ndarray:
    return _eigenvectors(np.eye(len(a)) - _degree_power(a, 1.0)[:, None] * a, slice(1, k + 1))


def _zero_at_isolated(a: np.ndarray, k: int) -> np.ndarray:
    """networkx's and scipy's convention D^-1/2 (D - A) D^-1/2: L_ii = 0 at an isolated node."""
    d = _degree_power(a, 0.5)
    laplacian = d[:, None] * (np.diag(a.sum(axis=1)) - a) * d[None, :]
    return np.linalg.eigh(laplacian)[1][:, 1 : k + 1]


def _largest_eigenvalues(a: np.ndarray, k: int) -> np.ndarray:
    d = _degree_power(a, 0.5)
    laplacian = np.eye(len(a)) - d[:, None] * a * d[None, :]
    return _eigenvectors(laplacian, slice(None))[:, ::-1][:, :k]


def _aligned(answer: Callable[[np.ndarray, int], object]) -> Callable[[np.ndarray, int], object]:
    """The same answer with each column's sign matched to the expected column's."""

    def fn(adjacency: np.ndarray, k: int) -> object:
        return _align_signs(answer(adjacency, k), (adjacency, k))

    return fn


def _align_signs(result: object, args: tuple) -> object:
    """Flip each column of the learner's result to agree in sign with the expected column:
    an eigenvector's sign is arbitrary, so either sign passes."""
    try:
        got = as_numpy(result)
    except (ValueError, TypeError, RuntimeError):
        return result  # not an array: the comparison reports what came back
    expected = laplacian_pe(*args)
    if got.dtype.kind not in "biuf" or got.shape != expected.shape:
        return result  # the comparison reports the dtype or the shape
    got = got.astype(np.float64)
    signs = np.where(np.sum(got * expected, axis=0) < 0, -1.0, 1.0)  # (k,)
    return got * signs


def check_laplacian_pe(fn: Callable[[np.ndarray, int], object]) -> bool:
    """Check ``fn(adjacency, k)`` -> ``(N, k)`` unit eigenvectors of ``I - D^-1/2 A D^-1/2`` for
    the 2nd to the (k+1)-th smallest eigenvalues (:func:`helpers.encodings.laplacian_pe`); each
    column may have either sign. Used in notebook 14."""
    cases = [Case((a, k), laplacian_pe(a, k), label) for a, k, label in _LAPLACIAN_CASES]
    # the isolated-node convention comes before the trivial eigenvector: its extra zero
    # eigenvalue puts a trivial-looking vector in column 1, and its hint names the cause
    mistakes = [
        Mistake(
            _aligned(_unnormalised),
            "these are eigenvectors of the unnormalised Laplacian D - A; normalise it: "
            "L = I - D^-1/2 A D^-1/2, so that high-degree nodes do not dominate.",
        ),
        Mistake(
            _aligned(_zero_at_isolated),
            "an isolated node needs L_ii = 1: use I - D^-1/2 A D^-1/2. The form "
            "D^-1/2 (D - A) D^-1/2 (networkx's and scipy's) gives L_ii = 0 there, a second "
            "zero eigenvalue.",
        ),
        Mistake(
            _aligned(_trivial_kept),
            "your first column is the trivial eigenvector (eigenvalue 0, proportional to "
            "sqrt(degree)): it says nothing about position. Drop it and take the next k.",
        ),
        Mistake(
            _aligned(_random_walk_laplacian),
            "these are eigenvectors of I - D^-1 A (D^-1 on one side only): that matrix is not "
            "symmetric and its eigenvectors are not orthogonal. Put D^-1/2 on both sides.",
        ),
        Mistake(
            _aligned(_largest_eigenvalues),
            "you took the eigenvectors of the largest eigenvalues; the encoding uses the "
            "smallest ones (the smoothest patterns on the graph), after the first. "
            "np.linalg.eigh returns them in ascending order.",
        ),
    ]
    return run_checker(
        "check_laplacian_pe",
        fn,
        cases,
        mistakes,
        extract=_align_signs,
        generic_hint="build D^-1/2 with 0 for isolated nodes (no division by zero), form "
        "L = I - D^-1/2 A D^-1/2 (so L_ii = 1 at an isolated node), then np.linalg.eigh(L) and "
        "the columns 1 .. k.",
    )


# --- random-walk encoding -------------------------------------------------------------------------

_RANDOM_WALK_CASES = [
    (_path(4), 4, "a path of 4 nodes, k=4"),
    (_random_graph(8, 0.4, 0), 5, "a random graph of 8 nodes, k=5"),
    (_random_graph(6, 0.5, 0), 3, "a graph of 6 nodes with an isolated node, k=3"),
]


def _walk_powers(matrix: np.ndarray, first: int, k: int) -> np.ndarray:
    """Diagonals of ``matrix ** first`` .. ``matrix ** (first + k - 1)``, as columns."""
    powers = [np.linalg.matrix_power(matrix, j) for j in range(first, first + k)]
    return np.stack([np.diag(p) for p in powers], axis=1)


def _from_step_zero(a: np.ndarray, k: int) -> np.ndarray:
    return _walk_powers(_degree_power(a, 1.0)[:, None] * a, 0, k)


def _closed_walk_counts(a: np.ndarray, k: int) -> np.ndarray:
    return _walk_powers(a, 1, k)


def _from_step_two(a: np.ndarray, k: int) -> np.ndarray:
    return _walk_powers(_degree_power(a, 1.0)[:, None] * a, 2, k)


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
    ]
    return run_checker(
        "check_random_walk_pe",
        fn,
        cases,
        mistakes,
        generic_hint="a walk from an isolated node cannot move: give D^-1 a 0 there, not a "
        "division by zero (which makes NaN).",
    )
