"""Off by one in the bit index: shifts by 1..num_bits, so bit 0 is lost and one bit too many is taken at the top."""
KIND = "wrong"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    positions = np.asarray(positions, dtype=np.int64)
    out = np.zeros((len(positions), num_bits))
    for b in range(1, num_bits + 1):
        out[:, b - 1] = (positions >> b) & 1
    return out
