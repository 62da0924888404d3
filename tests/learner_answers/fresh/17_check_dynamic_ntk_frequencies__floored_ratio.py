"""Computes the length ratio with integer division, max(n, L) // L, so the base moves in steps."""
KIND = "wrong"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    ratio = max(seq_len, original_max_len) // original_max_len
    stretch = factor * ratio - (factor - 1)
    new_base = base * stretch ** (d / (d - 2))
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-2 * k / d)
