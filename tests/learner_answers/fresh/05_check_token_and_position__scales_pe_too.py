"""Adds first and scales afterwards, so the position encoding is scaled by sqrt(d_model) as well."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    d_model = weight.shape[-1]
    return math.sqrt(d_model) * (weight[tokens] + pe[: tokens.size(1)])
