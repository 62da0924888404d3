"""Takes the paper's sentence literally: a geometric progression ending exactly at base * 2 pi."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import numpy as np

def answer(d_model, base):
    return np.geomspace(2 * np.pi, base * 2 * np.pi, d_model // 2)
