"""Only two cases: divides the pairs under one turn (wavelength > L / low_freq_factor) and keeps all others, with no blend band."""
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
    return torch.where(wavelen > L / low_freq_factor, omega / factor, omega)
