"""correct: NumPy with np.clip on the turns, blended as omega / (factor / (1 + sigma (factor - 1))) rewritten as a per-pair divisor."""
KIND = "correct"
CHECKER = "check_llama3_frequencies"
LESSON = "17"
import numpy as np
import torch


def answer(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
    k = np.arange(d // 2)
    omega = np.exp(-2.0 * k / d * np.log(base))
    turns = original_max_len * omega / (2 * np.pi)
    if high_freq_factor == low_freq_factor:
        sigma = (turns > high_freq_factor).astype(float)
    else:
        sigma = np.clip((turns - low_freq_factor) / (high_freq_factor - low_freq_factor), 0.0, 1.0)
    divisor = factor / (1.0 + sigma * (factor - 1.0))
    return torch.from_numpy(omega / divisor)
