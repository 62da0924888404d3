"""Saturates positions at 2**num_bits - 1 instead of letting them wrap around."""
KIND = "wrong"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    positions = np.minimum(np.asarray(positions, dtype=np.int64), 2**num_bits - 1)
    bits = [(positions // 2**k) % 2 for k in range(num_bits)]
    return np.stack(bits, axis=1).astype(float)
