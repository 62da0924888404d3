"""correct: einsum for both products and a hand-written stable softmax (subtract the row max, exp, normalise)."""
KIND = "correct"
CHECKER = "check_attention"
LESSON = "06"
import math
import torch

def answer(q, k, v, mask):
    scale = 1.0 / math.sqrt(q.shape[-1])
    scores = torch.einsum("...qd,...kd->...qk", q * scale, k)
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, float("-inf")))
    scores = scores - scores.amax(dim=-1, keepdim=True)
    e = torch.exp(scores)
    weights = e / e.sum(dim=-1, keepdim=True)
    out = torch.einsum("...qk,...kd->...qd", weights, v)
    return out, weights
