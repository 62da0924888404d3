"""Ignores pad_id and compares with 0 (the course's usual padding id)."""
KIND = "wrong"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    return (tokens != 0).unsqueeze(1).unsqueeze(2)
