"""Counts positions from 1 instead of 0."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "03"
import numpy as np

def answer(num_positions, d_model):
    pos = np.arange(1, num_positions + 1)[:, None]
    omega = 10000.0 ** (-2 * np.arange(d_model // 2) / d_model)
    pe = np.zeros((num_positions, d_model))
    pe[:, 0::2] = np.sin(pos * omega)
    pe[:, 1::2] = np.cos(pos * omega)
    return pe
