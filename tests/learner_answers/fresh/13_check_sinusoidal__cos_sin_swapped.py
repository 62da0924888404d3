"""Puts cos on the even columns and sin on the odd ones."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "13"
import numpy as np


def answer(num_positions, d_model):
    t = np.arange(num_positions)[:, None]
    i = np.arange(d_model)
    angles = t / 10000.0 ** (2 * (i // 2) / d_model)
    return np.where(i % 2 == 0, np.cos(angles), np.sin(angles))
