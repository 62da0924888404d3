"""correct: two nested Python loops with math.sin / math.cos, filling a float64 array."""
KIND = "correct"
CHECKER = "check_sinusoidal"
LESSON = "03"
import math
import numpy as np

def answer(num_positions, d_model):
    pe = np.zeros((num_positions, d_model), dtype=np.float64)
    for t in range(num_positions):
        for k in range(d_model // 2):
            angle = t / (10000 ** (2 * k / d_model))
            pe[t, 2 * k] = math.sin(angle)
            pe[t, 2 * k + 1] = math.cos(angle)
    return pe
