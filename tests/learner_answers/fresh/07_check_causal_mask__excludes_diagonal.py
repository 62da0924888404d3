"""tril with diagonal=-1: a query may not attend to itself."""
KIND = "wrong"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    return torch.tril(torch.ones(seq_len, seq_len), diagonal=-1).bool()
