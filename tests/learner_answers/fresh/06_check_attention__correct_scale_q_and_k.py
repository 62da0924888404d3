"""correct: scales q and k each by d_k**-0.25 before the product, fills masked scores with the dtype's lowest value."""
KIND = "correct"
CHECKER = "check_attention"
LESSON = "06"
import math
import torch

def answer(q, k, v, mask):
    d_k = q.size(-1)
    s = d_k ** -0.25
    scores = (q * s) @ (k * s).transpose(-1, -2)
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), torch.finfo(scores.dtype).min)
    weights = torch.nn.functional.softmax(scores, dim=-1)
    return weights @ v, weights
