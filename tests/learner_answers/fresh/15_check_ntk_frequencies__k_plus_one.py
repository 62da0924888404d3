"""Counts pairs from 1, so the fastest frequency is not 1."""
KIND = "wrong"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import torch


def answer(d, factor, base):
    new_base = base * factor ** (d / (d - 2))
    k = torch.arange(1, d // 2 + 1, dtype=torch.float64)
    return new_base ** (-2 * k / d)
