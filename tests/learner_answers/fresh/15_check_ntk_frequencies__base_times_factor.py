"""Multiplies the base by the factor without the exponent d/(d-2)."""
KIND = "wrong"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import torch


def answer(d, factor, base):
    k = torch.arange(d // 2, dtype=torch.float64)
    return (base * factor) ** (-2 * k / d)
