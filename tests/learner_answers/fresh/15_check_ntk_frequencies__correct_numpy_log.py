"""correct: NumPy in log space, exp(-(2k/d) * (ln base + d/(d-2) ln factor)), as a float64 tensor."""
KIND = "correct"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import numpy as np
import torch


def answer(d, factor, base):
    k = np.arange(d // 2)
    log_base = np.log(base) + d / (d - 2) * np.log(factor)
    return torch.tensor(np.exp(-2.0 * k / d * log_base), dtype=torch.float64)
