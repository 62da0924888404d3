"""Builds the mask with NumPy and returns an ndarray instead of a torch tensor."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import numpy as np

def answer(seq_len):
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))
