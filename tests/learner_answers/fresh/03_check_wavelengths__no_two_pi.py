"""Returns base**(2k/d), i.e. 1/omega, forgetting the factor 2 pi."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np

def answer(d_model, base):
    k = np.arange(d_model // 2)
    return base ** (2 * k / d_model)
