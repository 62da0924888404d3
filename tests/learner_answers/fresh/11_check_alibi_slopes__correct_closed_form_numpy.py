"""correct: closed-form exponents in NumPy float64: -8(h+1)/p for the first p heads, -4(2j+1)/p for the extra ones."""
KIND = "correct"
CHECKER = "check_alibi_slopes"
LESSON = "11"
import numpy as np
import torch


def answer(num_heads):
    p = 1
    while p * 2 <= num_heads:
        p *= 2
    exps = list(-8.0 * np.arange(1, p + 1) / p)
    extra = num_heads - p
    exps += list(-4.0 * (2 * np.arange(extra) + 1) / p)
    return torch.from_numpy(2.0 ** np.array(exps, dtype=np.float64)).float()
