"""Fixes the mask polarity but forgets the 1/sqrt(d_k) scaling."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "13"
import torch


def answer(q, k, v, mask):
    scores = q @ k.transpose(-2, -1)
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
