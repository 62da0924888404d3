"""Counts pairs from k = 1 to d/2, so every wavelength is one step too long."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np

def answer(d_model, base):
    k = np.arange(1, d_model // 2 + 1)
    return 2 * np.pi * base ** (2 * k / d_model)
