"""correct: fills the four diagonals of the blocks with fancy indexing, frequencies via exp/log."""
KIND = "correct"
CHECKER = "check_offset_matrix"
LESSON = "04"
import numpy as np

def answer(offset, d_model):
    k = np.arange(d_model // 2)
    theta = offset * np.exp(-2 * k / d_model * np.log(10000.0))
    M = np.zeros((d_model, d_model))
    e, o = 2 * k, 2 * k + 1
    M[e, e] = np.cos(theta)
    M[o, o] = np.cos(theta)
    M[e, o] = np.sin(theta)
    M[o, e] = -np.sin(theta)
    return M
