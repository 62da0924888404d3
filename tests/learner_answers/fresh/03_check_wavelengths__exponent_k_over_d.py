"""Drops the 2 in the exponent: 2 pi * base**(k/d)."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np

def answer(d_model, base):
    k = np.arange(d_model // 2)
    return 2 * np.pi * base ** (k / d_model)
