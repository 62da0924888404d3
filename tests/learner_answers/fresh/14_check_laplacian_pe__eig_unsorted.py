"""Uses np.linalg.eig, whose eigenvalues are not sorted, and slices columns 1..k as if they were."""
KIND = "wrong"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    deg = A.sum(axis=1)
    inv_sqrt = np.zeros_like(deg)
    inv_sqrt[deg > 0] = 1 / np.sqrt(deg[deg > 0])
    L = np.eye(len(A)) - inv_sqrt[:, None] * A * inv_sqrt[None, :]
    _, vecs = np.linalg.eig(L)
    return np.real(vecs[:, 1 : k + 1])
