"""Divides every frequency by the factor (position interpolation) instead of raising the base."""
KIND = "wrong"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import torch


def answer(d, factor, base):
    k = torch.arange(d // 2, dtype=torch.float64)
    return base ** (-2 * k / d) / factor
