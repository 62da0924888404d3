"""correct: einsum for the scores, -inf where the mask is False, softmax over keys."""
KIND = "correct"
CHECKER = "check_attention"
LESSON = "13"
import math
import torch


def answer(q, k, v, mask):
    scores = torch.einsum("...qd,...kd->...qk", q, k) * (1.0 / math.sqrt(q.size(-1)))
    if mask is not None:
        scores = scores.masked_fill(mask.logical_not(), float("-inf"))
    weights = scores.softmax(dim=-1)
    return torch.einsum("...qk,...kd->...qd", weights, v), weights
