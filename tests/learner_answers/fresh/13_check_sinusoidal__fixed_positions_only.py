"""Fixes the positions (start at 0) but keeps the buggy exponent 2*i/d with the dimension index i."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "13"
import numpy as np


def answer(num_positions, d_model):
    t = np.arange(num_positions)[:, None]
    i = np.arange(d_model)
    angles = t / 10000.0 ** (2 * i / d_model)
    return np.where(i % 2 == 0, np.sin(angles), np.cos(angles))
