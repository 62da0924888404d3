"""Returns one wavelength per column (d_model values, each pair repeated) instead of d_model/2."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np

def answer(d_model, base):
    i = np.arange(d_model)
    return 2 * np.pi * base ** (2 * (i // 2) / d_model)
