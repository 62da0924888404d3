"""correct: torch.ne, then reshape to (batch, 1, 1, seq_len)."""
KIND = "correct"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    b, s = tokens.shape
    return torch.ne(tokens, pad_id).reshape(b, 1, 1, s)
