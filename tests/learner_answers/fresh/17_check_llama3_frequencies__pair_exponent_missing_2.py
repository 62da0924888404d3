"""Right rule, but the base frequencies are written base^(-k/d)."""
KIND = "wrong"
CHECKER = "check_llama3_frequencies"
LESSON = "17"
import math
import torch


def answer(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = base ** (-k / d)
    turns = original_max_len * omega / (2 * math.pi)
    s = ((turns - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    return (1 - s) * omega / factor + s * omega
