"""Scales by sqrt of the value width v.shape[-1] instead of the key width."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "13"
import math
import torch


def answer(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(v.shape[-1])
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
