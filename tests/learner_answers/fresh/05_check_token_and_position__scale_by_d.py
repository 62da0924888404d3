"""Scales by d_model instead of sqrt(d_model)."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    d_model = weight.shape[1]
    return d_model * weight[tokens] + pe[: tokens.shape[1]]
