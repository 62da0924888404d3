"""Computes 1/sqrt(degree) directly, so an isolated node gives inf and NaN in the Laplacian."""
KIND = "wrong"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    deg = A.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        D_inv_sqrt = np.diag(1.0 / np.sqrt(deg))
        L = np.eye(len(A)) - D_inv_sqrt @ A @ D_inv_sqrt
    L = np.nan_to_num(L, nan=0.0, posinf=0.0, neginf=0.0)
    _, vecs = np.linalg.eigh(L)
    return vecs[:, 1 : k + 1]
