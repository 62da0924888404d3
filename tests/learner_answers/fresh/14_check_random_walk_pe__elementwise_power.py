"""Raises P to the j-th power element by element (P ** j) instead of as a matrix."""
KIND = "wrong"
CHECKER = "check_random_walk_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    deg = A.sum(axis=1)
    inv = np.zeros_like(deg)
    inv[deg > 0] = 1.0 / deg[deg > 0]
    P = inv[:, None] * A
    return np.stack([np.diag(P ** j) for j in range(1, k + 1)], axis=1)
