"""Mean and variance over every element of x (no dim), not per row."""
KIND = "wrong"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    mean = x.mean()
    var = ((x - mean) ** 2).mean()
    return gamma * (x - mean) / torch.sqrt(var + eps) + beta
