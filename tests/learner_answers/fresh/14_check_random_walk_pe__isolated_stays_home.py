"""Gives isolated nodes a self-loop in P (the walk stays put), so their rows are ones instead of zeros."""
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
    for i in np.flatnonzero(deg == 0):
        P[i, i] = 1.0
    return np.stack([np.diag(np.linalg.matrix_power(P, j)) for j in range(1, k + 1)], axis=1)
