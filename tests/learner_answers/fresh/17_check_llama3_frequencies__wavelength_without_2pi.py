"""Takes the wavelength as 1/omega, forgetting the 2 pi."""
KIND = "wrong"
CHECKER = "check_llama3_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, low_freq_factor, high_freq_factor):
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = base ** (-2 * k / d)
    L = original_max_len
    wavelen = 1.0 / omega
    s = ((L / wavelen - low_freq_factor) / (high_freq_factor - low_freq_factor)).clamp(0, 1)
    return (1 - s) * omega / factor + s * omega
