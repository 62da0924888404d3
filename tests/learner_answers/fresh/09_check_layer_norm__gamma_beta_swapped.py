"""Multiplies by beta and adds gamma."""
KIND = "wrong"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return beta * (x - mean) / torch.sqrt(var + eps) + gamma
