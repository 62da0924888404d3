"""correct: broadcast comparison key index <= query index."""
KIND = "correct"
CHECKER = "check_causal_mask"
LESSON = "07"
import torch

def answer(seq_len):
    idx = torch.arange(seq_len)
    return idx[None, :] <= idx[:, None]
