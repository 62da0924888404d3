"""Writes the exponent with // so 2*(i//2)//d_model is 0 for every column: every pair gets frequency 1."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "13"
import numpy as np


def answer(num_positions, d_model):
    t = np.arange(num_positions)[:, None]
    i = np.arange(d_model)
    angles = t / 10000.0 ** (2 * (i // 2) // d_model)
    return np.where(i % 2 == 0, np.sin(angles), np.cos(angles))
