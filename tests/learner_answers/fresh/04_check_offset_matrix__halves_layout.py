"""Places pair k at rows/columns k and k + d/2 (halves layout) although the encoding is interleaved."""
KIND = "wrong"
CHECKER = "check_offset_matrix"
LESSON = "04"
import numpy as np

def answer(offset, d_model):
    h = d_model // 2
    M = np.zeros((d_model, d_model))
    for k in range(h):
        w = 10000.0 ** (-2 * k / d_model)
        c, s = np.cos(w * offset), np.sin(w * offset)
        M[k, k], M[k, k + h] = c, s
        M[k + h, k], M[k + h, k + h] = -s, c
    return M
