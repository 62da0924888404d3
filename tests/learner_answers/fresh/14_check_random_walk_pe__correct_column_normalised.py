"""correct: uses A D^-1 (column-normalised) instead of D^-1 A; the two are similar by a diagonal matrix, so their powers have the same diagonals."""
KIND = "correct"
CHECKER = "check_random_walk_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    deg = A.sum(axis=0)
    inv = np.divide(1.0, deg, out=np.zeros_like(deg), where=deg > 0)
    P = A * inv[None, :]
    pe = np.zeros((A.shape[0], k))
    M = P.copy()
    for j in range(k):
        pe[:, j] = M.diagonal()
        M = M @ P
    return pe
