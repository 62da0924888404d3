"""Concatenates all sines then all cosines (halves layout) instead of interleaving."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "03"
import numpy as np

def answer(num_positions, d_model):
    pos = np.arange(num_positions)[:, None]
    omega = 10000.0 ** (-2 * np.arange(d_model // 2) / d_model)
    return np.concatenate([np.sin(pos * omega), np.cos(pos * omega)], axis=1)
