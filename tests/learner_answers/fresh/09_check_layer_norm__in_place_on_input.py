"""Subtracts the mean and divides in place on x, so the caller's tensor is overwritten."""
KIND = "wrong"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    var = x.var(-1, unbiased=False, keepdim=True)
    x -= mean
    x /= torch.sqrt(var + eps)
    return x * gamma + beta
