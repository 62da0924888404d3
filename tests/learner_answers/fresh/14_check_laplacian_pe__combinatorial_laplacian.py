"""Uses the unnormalised Laplacian D - A instead of I - D^-1/2 A D^-1/2."""
KIND = "wrong"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    L = np.diag(A.sum(axis=1)) - A
    _, vecs = np.linalg.eigh(L)
    return vecs[:, 1 : k + 1]
