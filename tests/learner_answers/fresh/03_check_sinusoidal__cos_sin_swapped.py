"""Puts cos in the even columns and sin in the odd ones."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "03"
import numpy as np

def answer(num_positions, d_model):
    pos = np.arange(num_positions)[:, None]
    omega = 10000.0 ** (-np.arange(0, d_model, 2) / d_model)
    pe = np.zeros((num_positions, d_model))
    pe[:, 0::2] = np.cos(pos * omega)
    pe[:, 1::2] = np.sin(pos * omega)
    return pe
