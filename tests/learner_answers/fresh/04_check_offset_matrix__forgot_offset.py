"""Forgot to multiply by the offset, so the angle is omega_k (the matrix for an offset of 1)."""
KIND = "wrong"
CHECKER = "check_offset_matrix"
LESSON = "04"
import numpy as np

def answer(offset, d_model):
    M = np.zeros((d_model, d_model))
    for k in range(d_model // 2):
        w = 10000.0 ** (-2 * k / d_model)
        M[2 * k, 2 * k] = np.cos(w)
        M[2 * k, 2 * k + 1] = np.sin(w)
        M[2 * k + 1, 2 * k] = -np.sin(w)
        M[2 * k + 1, 2 * k + 1] = np.cos(w)
    return M
