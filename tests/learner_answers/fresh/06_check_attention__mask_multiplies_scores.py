"""Multiplies the scores by the mask (masked scores become 0, not -inf), so masked keys still get weight."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "06"
import math
import torch

def answer(q, k, v, mask):
    scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(k.shape[-1])
    if mask is not None:
        scores = scores * mask
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
