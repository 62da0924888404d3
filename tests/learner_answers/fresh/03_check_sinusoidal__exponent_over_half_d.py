"""Divides the exponent by d/2 as well as using 2k: omega_k = base**(-2k/(d/2)), so frequencies fall twice as fast."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "03"
import numpy as np

def answer(num_positions, d_model):
    pos = np.arange(num_positions)[:, None]
    k = np.arange(d_model // 2)
    omega = 10000.0 ** (-2 * k / (d_model / 2))
    pe = np.zeros((num_positions, d_model))
    pe[:, 0::2] = np.sin(pos * omega)
    pe[:, 1::2] = np.cos(pos * omega)
    return pe
