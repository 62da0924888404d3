"""Concatenates all sines then all cosines (halves layout) instead of interleaving them."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "13"
import numpy as np


def answer(num_positions, d_model):
    t = np.arange(num_positions)[:, None]
    k = np.arange(d_model // 2)
    angles = t / 10000.0 ** (2 * k / d_model)
    return np.concatenate([np.sin(angles), np.cos(angles)], axis=1)
