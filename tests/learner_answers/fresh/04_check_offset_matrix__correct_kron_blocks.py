"""correct: sum of np.kron(E_kk, block_k), one 2x2 block per pair."""
KIND = "correct"
CHECKER = "check_offset_matrix"
LESSON = "04"
import numpy as np

def answer(offset, d_model):
    h = d_model // 2
    M = np.zeros((d_model, d_model))
    for k in range(h):
        phi = offset / 10000 ** (2 * k / d_model)
        block = np.array([[np.cos(phi), np.sin(phi)], [-np.sin(phi), np.cos(phi)]])
        E = np.zeros((h, h))
        E[k, k] = 1.0
        M += np.kron(E, block)
    return M
