"""Swaps the blend weights: sigma on the divided frequency and 1 - sigma on the kept one."""
KIND = "wrong"
CHECKER = "check_llama3_frequencies"
LESSON = "17"
import math
import torch


def answer(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = base ** (-2 * k / d)
    L = original_max_len
    turns = L * omega / (2 * math.pi)
    s = ((turns - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    return s * omega / factor + (1 - s) * omega
