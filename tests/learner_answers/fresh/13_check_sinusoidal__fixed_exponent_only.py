"""Fixes the exponent (pair index) but keeps positions starting at 1."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "13"
import numpy as np


def answer(num_positions, d_model):
    t = np.arange(1, num_positions + 1)[:, None]
    i = np.arange(d_model)
    angles = t / 10000.0 ** (2 * (i // 2) / d_model)
    return np.where(i % 2 == 0, np.sin(angles), np.cos(angles))
