"""Builds one row per bit, so the result is (num_bits, len(positions))."""
KIND = "wrong"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    positions = np.asarray(positions, dtype=np.int64)
    k = np.arange(num_bits)
    return ((positions[None, :] >> k[:, None]) & 1).astype(np.float64)
