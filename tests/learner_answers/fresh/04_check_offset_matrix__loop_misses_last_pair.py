"""Loop bound off by one: range(d_model // 2 - 1) leaves the last 2x2 block all zeros."""
KIND = "wrong"
CHECKER = "check_offset_matrix"
LESSON = "04"
import numpy as np

def answer(offset, d_model):
    M = np.zeros((d_model, d_model))
    for k in range(d_model // 2 - 1):
        w = 10000.0 ** (-2 * k / d_model)
        c, s = np.cos(w * offset), np.sin(w * offset)
        M[2 * k : 2 * k + 2, 2 * k : 2 * k + 2] = [[c, s], [-s, c]]
    return M
