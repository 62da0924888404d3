"""Formats the number as a binary string and keeps its first num_bits characters, so large positions keep the high bits rather than wrapping."""
KIND = "wrong"
CHECKER = "check_binary_encoding"
LESSON = "02"
import numpy as np

def answer(positions, num_bits):
    rows = []
    for p in positions:
        s = format(int(p), f"0{num_bits}b")[:num_bits]
        rows.append([float(c) for c in reversed(s)])
    return np.array(rows, dtype=np.float64).reshape(len(positions), num_bits)
