"""Takes the diagonal of A^j (numbers of closed walks) without dividing by the degrees."""
KIND = "wrong"
CHECKER = "check_random_walk_pe"
LESSON = "14"
import numpy as np


def answer(adjacency, k):
    A = np.asarray(adjacency, dtype=float)
    return np.stack([np.diag(np.linalg.matrix_power(A, j)) for j in range(1, k + 1)], axis=1)
