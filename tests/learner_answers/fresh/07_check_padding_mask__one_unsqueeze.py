"""Adds only one axis: shape (batch, 1, seq_len)."""
KIND = "wrong"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    return (tokens != pad_id).unsqueeze(1)
