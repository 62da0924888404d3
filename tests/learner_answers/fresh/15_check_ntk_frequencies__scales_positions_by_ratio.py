"""Divides the frequencies by factor^(d/(d-2)) (the base change applied to every pair alike)."""
KIND = "wrong"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import torch


def answer(d, factor, base):
    k = torch.arange(d // 2, dtype=torch.float64)
    return base ** (-2 * k / d) / factor ** (d / (d - 2))
