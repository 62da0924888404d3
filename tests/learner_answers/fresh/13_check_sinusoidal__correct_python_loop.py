"""correct: a double loop with math.sin/math.cos into a NumPy array."""
KIND = "correct"
CHECKER = "check_sinusoidal"
LESSON = "13"
import math
import numpy as np


def answer(num_positions, d_model):
    pe = np.zeros((num_positions, d_model))
    for t in range(num_positions):
        for i in range(0, d_model, 2):
            angle = t / (10000 ** (i / d_model))
            pe[t, i] = math.sin(angle)
            if i + 1 < d_model:
                pe[t, i + 1] = math.cos(angle)
    return pe
