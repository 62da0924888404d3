"""Blends linearly in the wavelength between L/high and L/low instead of linearly in L/lambda."""
KIND = "wrong"
CHECKER = "check_llama3_frequencies"
LESSON = "17"
import math
import torch


def answer(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = base ** (-2 * k / d)
    L = original_max_len
    wavelen = 2 * math.pi / omega
    low_wl, high_wl = L / high_freq_factor, L / low_freq_factor
    s = ((high_wl - wavelen) / (high_wl - low_wl)).clamp(0, 1)
    return (1 - s) * omega / factor + s * omega
