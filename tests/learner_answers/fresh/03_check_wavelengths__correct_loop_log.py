"""correct: a loop computing exp(log(2 pi) + 2k/d * log(base))."""
KIND = "correct"
CHECKER = "check_wavelengths"
LESSON = "03"
import math
import numpy as np

def answer(d_model, base):
    out = []
    for k in range(d_model // 2):
        out.append(math.exp(math.log(2 * math.pi) + (2 * k / d_model) * math.log(base)))
    return np.array(out)
