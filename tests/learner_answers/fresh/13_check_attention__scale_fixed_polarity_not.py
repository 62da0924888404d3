"""Adds the 1/sqrt(d_k) scale but keeps masked_fill(mask, ...): fills the allowed positions."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "13"
import math
import torch


def answer(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(mask, -1e9)
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
