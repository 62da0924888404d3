"""Divides the scores by d_k instead of sqrt(d_k)."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "13"
import torch


def answer(q, k, v, mask):
    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / d_k
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
