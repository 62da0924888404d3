"""Adds a leading batch axis for broadcasting: returns shape (1, seq_len, seq_len)."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    return torch.tril(torch.ones(seq_len, seq_len, dtype=torch.bool)).unsqueeze(0)
