"""Puts the key axis in the query slot: shape (batch, 1, seq_len, 1)."""
KIND = "wrong"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    return (tokens != pad_id)[:, None, :, None]
