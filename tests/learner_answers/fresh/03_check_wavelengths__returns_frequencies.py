"""Returns the angular frequencies omega_k instead of the wavelengths."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np

def answer(d_model, base):
    k = np.arange(d_model // 2)
    return base ** (-2 * k / d_model)
