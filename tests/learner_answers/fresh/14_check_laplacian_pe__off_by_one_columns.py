"""Slices vecs[:, 1:k], returning only k - 1 columns."""
KIND = "wrong"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    deg = A.sum(axis=1)
    inv_sqrt = np.zeros_like(deg)
    inv_sqrt[deg > 0] = deg[deg > 0] ** -0.5
    L = np.eye(len(A)) - inv_sqrt[:, None] * A * inv_sqrt[None, :]
    _, vecs = np.linalg.eigh(L)
    return vecs[:, 1:k]
