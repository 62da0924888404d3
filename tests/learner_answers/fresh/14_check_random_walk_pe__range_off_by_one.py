"""Loops over range(1, k), giving only k - 1 columns."""
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
    return np.stack([np.diag(np.linalg.matrix_power(P, j)) for j in range(1, k)], axis=1).reshape(len(A), -1)
