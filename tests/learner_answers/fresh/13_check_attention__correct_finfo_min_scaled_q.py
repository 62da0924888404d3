"""correct: scales q before the product, fills with the dtype's most negative finite value via torch.where."""
KIND = "correct"
CHECKER = "check_attention"
LESSON = "13"
import torch


def answer(q, k, v, mask):
    q = q / q.shape[-1] ** 0.5
    scores = torch.matmul(q, k.transpose(-1, -2))
    if mask is not None:
        scores = torch.where(mask, scores, torch.full_like(scores, torch.finfo(scores.dtype).min))
    weights = torch.softmax(scores, dim=-1)
    return torch.matmul(weights, v), weights
