"""Divides by sqrt(d_model) (as in attention scores) instead of multiplying."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    d_model = weight.shape[-1]
    return weight[tokens] / math.sqrt(d_model) + pe[: tokens.shape[1]]
