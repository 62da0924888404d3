"""Frequency exponent -k/d instead of -2k/d."""
KIND = "wrong"
CHECKER = "check_offset_matrix"
LESSON = "04"
import numpy as np

def answer(offset, d_model):
    M = np.zeros((d_model, d_model))
    for k in range(d_model // 2):
        w = 10000.0 ** (-k / d_model)
        c, s = np.cos(w * offset), np.sin(w * offset)
        M[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[c, s], [-s, c]]
    return M
