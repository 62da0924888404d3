"""correct: torch.linalg.eigh in float64 with clamped degrees (isolated rows of A are zero anyway), returned as NumPy."""
KIND = "correct"
CHECKER = "check_laplacian_pe"
LESSON = "14"
import numpy as np
import torch


def answer(adjacency, k):
    A = torch.as_tensor(np.asarray(adjacency), dtype=torch.float64)
    deg = A.sum(dim=1)
    d = torch.where(deg > 0, deg.clamp(min=1).rsqrt(), torch.zeros_like(deg))
    L = torch.eye(A.shape[0], dtype=torch.float64) - d[:, None] * A * d[None, :]
    evals, evecs = torch.linalg.eigh(L)
    order = torch.argsort(evals)
    return evecs[:, order[1 : k + 1]].numpy()
