"""Returns the 'ignore' mask (True above the diagonal), the opposite convention."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    return torch.triu(torch.ones(seq_len, seq_len, dtype=torch.bool), diagonal=1)
