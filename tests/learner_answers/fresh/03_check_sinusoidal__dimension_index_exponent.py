"""Computes a frequency per column from the column index i (base**(-i/d)), so each cos column has a slightly different frequency from its sin partner."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "03"
import numpy as np

def answer(num_positions, d_model):
    pos = np.arange(num_positions)[:, None]
    i = np.arange(d_model)[None, :]
    angles = pos / 10000.0 ** (i / d_model)
    pe = np.empty((num_positions, d_model))
    pe[:, 0::2] = np.sin(angles[:, 0::2])
    pe[:, 1::2] = np.cos(angles[:, 1::2])
    return pe
