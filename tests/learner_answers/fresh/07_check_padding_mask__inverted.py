"""True at the padding positions instead of at the real tokens."""
KIND = "wrong"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    return (tokens == pad_id).unsqueeze(1).unsqueeze(2)
