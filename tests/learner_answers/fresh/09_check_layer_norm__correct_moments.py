"""correct: variance as E[x^2] - E[x]^2, rsqrt, with sums divided by the width."""
KIND = "correct"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    n = x.shape[-1]
    mean = x.sum(-1, keepdim=True) / n
    var = (x * x).sum(-1, keepdim=True) / n - mean * mean
    return (x - mean) * torch.rsqrt(var + eps) * gamma + beta
