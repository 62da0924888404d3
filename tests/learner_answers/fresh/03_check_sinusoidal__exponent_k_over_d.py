"""Forgot the factor 2 in the exponent: omega_k = base**(-k/d) with k the pair index."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "03"
import numpy as np

def answer(num_positions, d_model):
    pos = np.arange(num_positions)[:, None]
    k = np.arange(d_model // 2)
    omega = 10000.0 ** (-k / d_model)
    pe = np.zeros((num_positions, d_model))
    pe[:, 0::2] = np.sin(pos * omega)
    pe[:, 1::2] = np.cos(pos * omega)
    return pe
