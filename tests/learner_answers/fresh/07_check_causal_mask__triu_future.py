"""Used triu instead of tril: each query may attend to itself and the future, not the past."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    return torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool))
