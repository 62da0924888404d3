"""Scales the embedding matrix in place (weight *= sqrt(d)), which changes the caller's weights every call."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    with torch.no_grad():
        weight *= math.sqrt(weight.shape[1])
    return weight[tokens] + pe[: tokens.shape[1]]
