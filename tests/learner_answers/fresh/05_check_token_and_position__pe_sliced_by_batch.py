"""Slices pe with the batch size (tokens.shape[0]) instead of the sequence length."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    batch = tokens.shape[0]
    return weight[tokens] * math.sqrt(weight.shape[1]) + pe[:batch].unsqueeze(0)
