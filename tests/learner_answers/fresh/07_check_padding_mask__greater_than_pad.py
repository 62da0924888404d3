"""Uses tokens > pad_id, assuming the pad id is the smallest id."""
KIND = "wrong"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    return (tokens > pad_id)[:, None, None, :]
