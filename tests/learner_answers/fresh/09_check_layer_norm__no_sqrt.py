"""Divides by the variance plus eps instead of its square root."""
KIND = "wrong"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    var = ((x - mean) ** 2).mean(-1, keepdim=True)
    return gamma * (x - mean) / (var + eps) + beta
