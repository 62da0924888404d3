"""Raises the base correctly but writes the frequencies as base'^(-k/d), forgetting the 2."""
KIND = "wrong"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import torch


def answer(d, factor, base):
    new_base = base * factor ** (d / (d - 2))
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-k / d)
