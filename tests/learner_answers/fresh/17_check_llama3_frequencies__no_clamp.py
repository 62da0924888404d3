"""Computes the ramp sigma but forgets to clamp it to [0, 1], so it extrapolates outside the band."""
KIND = "wrong"
CHECKER = "check_llama3_frequencies"
LESSON = "17"
import math
import torch


def answer(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = base ** (-2 * k / d)
    L = original_max_len
    turns = L / (2 * math.pi / omega)
    s = (turns - low_freq_factor) / (high_freq_factor - low_freq_factor)
    return (1 - s) * omega / factor + s * omega
