"""Right bits, but returns an integer array rather than floats 0.0 / 1.0."""
KIND = "wrong"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    positions = np.asarray(positions, dtype=np.int64)
    return (positions[:, None] >> np.arange(num_bits)) & 1
