"""Uses the random-walk Laplacian I - D^-1 A (non-symmetric) with eigh, which only reads one triangle."""
KIND = "wrong"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    deg = A.sum(axis=1)
    inv = np.zeros_like(deg)
    inv[deg > 0] = 1.0 / deg[deg > 0]
    L = np.eye(len(A)) - inv[:, None] * A
    _, vecs = np.linalg.eigh(L)
    return vecs[:, 1 : k + 1]
