"""Builds the table with dimensions on the rows: shape (d_model, num_positions)."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "13"
import numpy as np


def answer(num_positions, d_model):
    t = np.arange(num_positions)[None, :]
    i = np.arange(d_model)[:, None]
    angles = t / 10000.0 ** (2 * (i // 2) / d_model)
    return np.where(i % 2 == 0, np.sin(angles), np.cos(angles))
