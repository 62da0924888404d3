"""Types the base as 1000 instead of 10000."""
KIND = "wrong"
CHECKER = "check_sinusoidal"
LESSON = "13"
import numpy as np


def answer(num_positions, d_model):
    pe = np.zeros((num_positions, d_model))
    t = np.arange(num_positions)[:, None]
    div = 1000.0 ** (np.arange(0, d_model, 2) / d_model)
    pe[:, 0::2] = np.sin(t / div)
    pe[:, 1::2] = np.cos(t / div)
    return pe
