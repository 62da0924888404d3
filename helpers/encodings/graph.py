"""Positions in graphs: encodings built from a graph's structure. Derived in notebook 14.

A graph's nodes have no order, only structure, so a node's "position" must come from the
graph itself. Three common answers, each a function of the ``(N, N)`` adjacency matrix ``A``
(symmetric, 0/1, no self-loops) with degrees ``D = diag(A 1)``:

- ``laplacian_pe``: eigenvectors of the symmetric normalised Laplacian
  ``L = I - D^-1/2 A D^-1/2`` (Dwivedi & Bresson 2020; Dwivedi et al. 2020, "Benchmarking
  Graph Neural Networks"). On a cycle they are the Fourier basis: sines and cosines.
- ``random_walk_pe``: the probability that a random walk returns to its start after
  ``1 .. k`` steps, the diagonal of ``(D^-1 A)^j`` (Dwivedi et al. 2022, ICLR).
- ``shortest_path_distances``: hop counts between every pair of nodes, which Graphormer
  (Ying et al. 2021, NeurIPS) turns into a learned per-head attention bias.

Results are numpy arrays. An isolated node (degree 0) gets 0 where ``D^-1/2`` or ``D^-1``
would divide by zero.
"""

from __future__ import annotations

import numpy as np
import torch

from .._checks import require_int

__all__ = ["laplacian_pe", "random_walk_pe", "shortest_path_distances"]

# Entries whose magnitudes differ by less than this count as tied when a sign is chosen, so
# that round-off on another machine cannot pick a different entry.
_SIGN_TIE = 1e-9


def _check_adjacency(adjacency: object) -> np.ndarray:
    """Return ``adjacency`` as a float64 ``(N, N)`` array, or raise naming what is wrong."""
    if isinstance(adjacency, torch.Tensor):
        array = adjacency.detach().cpu().numpy()
    elif isinstance(adjacency, np.ndarray):
        array = adjacency
    else:
        raise TypeError(
            f"adjacency must be a numpy array or a torch.Tensor of shape (N, N), got "
            f"{type(adjacency).__name__}"
        )
    if array.ndim != 2 or array.shape[0] != array.shape[1] or array.shape[0] == 0:
        raise ValueError(
            f"adjacency must be a square (N, N) matrix with N >= 1, got shape {array.shape}"
        )
    if array.dtype.kind not in "biuf":
        raise TypeError(f"adjacency must hold numbers (0/1 or bool), got dtype {array.dtype}")
    array = array.astype(np.float64)
    if not np.all((array == 0) | (array == 1)):
        bad = float(array[(array != 0) & (array != 1)][0])
        raise ValueError(f"adjacency must hold only 0 and 1, got the value {bad!r}")
    if not np.array_equal(array, array.T):
        i, j = np.argwhere(array != array.T)[0]
        raise ValueError(
            f"adjacency must be symmetric (an undirected graph), got adjacency[{i}, {j}] = "
            f"{array[i, j]:g} but adjacency[{j}, {i}] = {array[j, i]:g}"
        )
    if np.any(np.diag(array)):
        i = int(np.flatnonzero(np.diag(array))[0])
        raise ValueError(
            f"adjacency must have no self-loops (a zero diagonal), got adjacency[{i}, {i}] = 1"
        )
    return array


def _inverse_degrees(adjacency: np.ndarray, power: float) -> np.ndarray:
    """``degree ** -power`` per node, ``(N,)``; 0 for isolated nodes instead of a division by 0."""
    degree = adjacency.sum(axis=1)
    inverse = np.zeros_like(degree)
    np.power(degree, -power, out=inverse, where=degree > 0)
    return inverse


def laplacian_pe(adjacency: np.ndarray | torch.Tensor, k: int) -> np.ndarray:
    """Laplacian eigenvector encoding, float64 ``(N, k)``.

    Columns: the unit eigenvectors of ``L = I - D^-1/2 A D^-1/2`` for the 2nd to the
    ``(k+1)``-th smallest eigenvalues (the first, trivial one, proportional to ``sqrt(degree)``
    on a connected graph, is dropped). Each column's sign is fixed so that its largest-magnitude
    entry (the first one, on ties) is positive. Where eigenvalues repeat, the columns are one
    basis of the eigenspace among many: compare only basis-free quantities across machines.
    ``k`` must lie in ``1 .. N - 1``. Derived in notebook 14.
    """
    a = _check_adjacency(adjacency)
    n = a.shape[0]
    k = require_int("k", k, minimum=1)
    if k > n - 1:
        raise ValueError(
            f"k must be at most N - 1 = {n - 1} (the graph has N = {n} nodes and the first "
            f"eigenvector is dropped), got k={k}"
        )
    d_inv_sqrt = _inverse_degrees(a, 0.5)  # (N,)
    laplacian = np.eye(n) - d_inv_sqrt[:, None] * a * d_inv_sqrt[None, :]  # (N, N)
    _, vectors = np.linalg.eigh(laplacian)  # ascending eigenvalues, unit columns
    pe = vectors[:, 1 : k + 1]  # (N, k)
    magnitude = np.abs(pe)
    first_largest = np.argmax(magnitude >= magnitude.max(axis=0) - _SIGN_TIE, axis=0)  # (k,)
    signs = np.sign(pe[first_largest, np.arange(k)])
    return np.ascontiguousarray(pe * signs)


def random_walk_pe(adjacency: np.ndarray | torch.Tensor, k: int) -> np.ndarray:
    """Random-walk encoding, float64 ``(N, k)``: column ``j`` is the diagonal of ``(D^-1 A)^(j+1)``,
    the probability that a walk from each node is back at it after ``j + 1`` steps.

    Rows of isolated nodes are zero (such a walk cannot move). Derived in notebook 14.
    """
    a = _check_adjacency(adjacency)
    k = require_int("k", k, minimum=1)
    walk = _inverse_degrees(a, 1.0)[:, None] * a  # (N, N): D^-1 A, rows sum to 1 (or 0)
    pe = np.empty((a.shape[0], k))
    power = np.eye(a.shape[0])
    for j in range(k):
        power = power @ walk  # (D^-1 A)^(j+1)
        pe[:, j] = np.diag(power)
    return pe


def shortest_path_distances(adjacency: np.ndarray | torch.Tensor) -> np.ndarray:
    """Hop counts between every pair of nodes, int64 ``(N, N)``: 0 on the diagonal, -1 where
    no path exists. A breadth-first search from all nodes at once, one hop per step. Derived
    in notebook 14."""
    a = _check_adjacency(adjacency) > 0
    n = a.shape[0]
    distances = np.where(np.eye(n, dtype=bool), 0, -1).astype(np.int64)  # (N, N)
    reached = np.eye(n, dtype=bool)
    frontier = reached.copy()  # row i: the nodes first reached from i at the current hop
    for hop in range(1, n):
        frontier = (frontier.astype(np.int64) @ a.astype(np.int64) > 0) & ~reached
        if not frontier.any():
            break
        distances[frontier] = hop
        reached |= frontier
    return distances
