"""correct: NumPy float64, slowing plain pair k by bracket^(2k/(d-2)) (equivalent to the raised base)."""
KIND = "correct"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import numpy as np
import torch


def answer(d, factor, base, original_max_len, seq_len):
    bracket = max(1.0, factor * seq_len / original_max_len - (factor - 1))
    k = np.arange(d // 2, dtype=np.float64)
    omega = base ** (-2 * k / d) * bracket ** (-2 * k / (d - 2))
    return torch.from_numpy(omega)
