"""Converts the comparison to 0/1 long integers instead of keeping booleans."""
KIND = "wrong"
CHECKER = "check_padding_mask"
LESSON = "07"
import torch

def answer(tokens, pad_id):
    return (tokens != pad_id).long().view(tokens.size(0), 1, 1, tokens.size(1))
