"""correct: builds L entry by entry in a loop (1 on the diagonal, -1/sqrt(d_i d_j) on edges), then sorts np.linalg.eigh's output explicitly."""
KIND = "correct"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import math
import numpy as np


def answer(adjacency, k):
    A = np.array(adjacency, dtype=float)
    n = A.shape[0]
    deg = A.sum(axis=1)
    L = np.zeros((n, n))
    for i in range(n):
        L[i, i] = 1.0
        for j in range(n):
            if A[i, j] != 0:
                L[i, j] -= 1.0 / math.sqrt(deg[i] * deg[j])
    w, V = np.linalg.eigh(L)
    idx = np.argsort(w, kind="stable")
    return V[:, idx[1 : k + 1]]
