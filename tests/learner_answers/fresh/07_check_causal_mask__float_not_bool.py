"""Right pattern but returns a float tensor of ones and zeros, not booleans."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    return torch.tril(torch.ones(seq_len, seq_len))
