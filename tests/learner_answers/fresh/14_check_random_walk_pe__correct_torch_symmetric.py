"""correct: torch, with the symmetric D^-1/2 A D^-1/2 (same diagonals of its powers as D^-1 A) and torch.linalg.matrix_power."""
KIND = "correct"
CHECKER = "check_random_walk_pe"
LESSON = "14"
import numpy as np
import torch


def answer(adjacency, k):
    A = torch.as_tensor(np.asarray(adjacency), dtype=torch.float64)
    deg = A.sum(1)
    s = torch.where(deg > 0, 1.0 / deg.clamp(min=1).sqrt(), torch.zeros_like(deg))
    S = s[:, None] * A * s[None, :]
    cols = [torch.linalg.matrix_power(S, j).diagonal() for j in range(1, k + 1)]
    return torch.stack(cols, dim=1).numpy()
