"""Put the most significant bit first (reads like the binary string) instead of least significant first."""
KIND = "wrong"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    positions = np.asarray(positions, dtype=np.int64)
    shifts = np.arange(num_bits - 1, -1, -1)
    return ((positions[:, None] >> shifts) & 1).astype(np.float64)
