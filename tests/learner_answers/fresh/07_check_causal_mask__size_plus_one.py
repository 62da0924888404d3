"""Off-by-one size: builds a (seq_len + 1, seq_len + 1) mask."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    n = seq_len + 1
    return torch.tril(torch.ones(n, n, dtype=torch.bool))
