"""correct: nested Python loops setting True for j <= i in a bool tensor."""
KIND = "correct"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    m = torch.zeros((seq_len, seq_len), dtype=torch.bool)
    for i in range(seq_len):
        for j in range(i + 1):
            m[i, j] = True
    return m
