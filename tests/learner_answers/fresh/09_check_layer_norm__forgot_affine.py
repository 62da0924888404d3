"""Normalises correctly but forgets to apply gamma and beta."""
KIND = "wrong"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    return (x - mean) / torch.sqrt(var + eps)
