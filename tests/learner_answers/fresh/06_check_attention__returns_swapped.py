"""Returns (weights, output) instead of (output, weights)."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "06"
import math
import torch

def answer(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights, weights @ v
