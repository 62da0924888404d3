"""Adds eps to the standard deviation instead of to the variance inside the square root."""
KIND = "wrong"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    mean = x.mean(-1, keepdim=True)
    std = ((x - mean) ** 2).mean(-1, keepdim=True).sqrt()
    return gamma * (x - mean) / (std + eps) + beta
