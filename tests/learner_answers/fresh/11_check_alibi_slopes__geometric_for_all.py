"""Applies the paper's power-of-two rule 2^(-8h/n) to every head count, ignoring the authors' rule for 12 or 24 heads."""
KIND = "wrong"
CHECKER = "check_alibi_slopes"
LESSON = "11"
import torch


def answer(num_heads):
    n = num_heads
    return torch.tensor([2.0 ** (-8.0 * (h + 1) / n) for h in range(n)])
