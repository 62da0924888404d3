"""Takes the scale from q.size(-2) (the sequence length) instead of the key width."""
KIND = "wrong"
CHECKER = "check_attention"
LESSON = "06"
import math
import torch

def answer(q, k, v, mask):
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.size(-2))
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    weights = torch.softmax(scores, dim=-1)
    return weights @ v, weights
