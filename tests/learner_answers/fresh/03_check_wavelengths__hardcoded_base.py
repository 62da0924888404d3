"""Ignores the base argument and always uses 10000."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np

def answer(d_model, base):
    k = np.arange(d_model // 2)
    return 2 * np.pi * 10000.0 ** (2 * k / d_model)
