"""Uses true division and np.round instead of floor division when extracting each bit."""
KIND = "wrong"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    positions = np.asarray(positions, dtype=np.float64)
    k = np.arange(num_bits)
    return np.round(positions[:, None] / 2.0**k) % 2
