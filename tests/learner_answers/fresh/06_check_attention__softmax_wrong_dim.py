"""Softmax over the query axis (dim=-2) instead of over the keys."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "06"
import math
import torch

def answer(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-1))
    if mask is not None:
        scores = scores.masked_fill(mask == 0, float("-inf"))
    weights = torch.softmax(scores, dim=-2)
    return weights @ v, weights
