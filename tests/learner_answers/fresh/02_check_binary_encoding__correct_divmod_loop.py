"""correct: a Python loop peeling bits with divmod after reducing modulo 2**num_bits."""
KIND = "correct"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    out = np.zeros((len(positions), num_bits), dtype=np.float64)
    for i, p in enumerate(positions):
        p = int(p) % (2**num_bits)
        for b in range(num_bits):
            p, bit = divmod(p, 2)
            out[i, b] = bit
    return out
