"""Divides by the degree directly, so an isolated node's row becomes NaN instead of zero."""
KIND = "wrong"
CHECKER = "check_random_walk_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        P = A / A.sum(axis=1, keepdims=True)
    return np.stack([np.diag(np.linalg.matrix_power(P, j)) for j in range(1, k + 1)], axis=1)
