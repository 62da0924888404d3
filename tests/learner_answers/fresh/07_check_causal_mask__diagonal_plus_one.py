"""tril with diagonal=1: each query also sees the next token."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    return torch.ones(seq_len, seq_len).tril(diagonal=1).bool()
