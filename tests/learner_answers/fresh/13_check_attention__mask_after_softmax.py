"""Multiplies the softmax weights by the mask afterwards, without renormalising the rows."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "13"
import math
import torch


def answer(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    weights = torch.softmax(scores, dim=-1)
    if mask is not None:
        weights = weights * mask
    return weights @ v, weights
