"""Builds D^-1/2 (D - A) D^-1/2, which gives L_ii = 0 (not 1) for an isolated node."""
KIND = "wrong"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    deg = A.sum(axis=1)
    inv_sqrt = np.where(deg > 0, 1.0 / np.sqrt(np.where(deg > 0, deg, 1.0)), 0.0)
    Dm = np.diag(inv_sqrt)
    L = Dm @ (np.diag(deg) - A) @ Dm
    _, vecs = np.linalg.eigh(L)
    return vecs[:, 1 : k + 1]
