"""Transposes k with transpose(1, 2), which is right for 3-D tensors only; breaks for (B, H, T, d)."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "06"
import math
import torch

def answer(q, k, v, mask):
    d_k = q.shape[-1]
    scores = torch.matmul(q, k.transpose(1, 2)) / math.sqrt(d_k)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
