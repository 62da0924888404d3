"""Ignores seq_len and applies static NTK scaling with the full factor."""
KIND = "wrong"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    new_base = base * factor ** (d / (d - 2))
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-2 * k / d)
