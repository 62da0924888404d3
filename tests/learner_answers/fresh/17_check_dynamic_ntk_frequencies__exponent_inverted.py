"""Raises the bracket to (d-2)/d instead of d/(d-2)."""
KIND = "wrong"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    stretch = factor * max(seq_len, original_max_len) / original_max_len - (factor - 1)
    new_base = base * stretch ** ((d - 2) / d)
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-2 * k / d)
