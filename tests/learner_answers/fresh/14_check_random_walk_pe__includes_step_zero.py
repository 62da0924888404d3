"""Collects the diagonals of P^0 .. P^(k-1): the first column is all ones (step 0) and step k is missing."""
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
    out = []
    M = np.eye(len(A))
    for _ in range(k):
        out.append(np.diag(M))
        M = M @ P
    return np.stack(out, axis=1)
