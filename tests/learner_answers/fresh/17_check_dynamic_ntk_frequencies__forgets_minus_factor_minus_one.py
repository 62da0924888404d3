"""Drops the - (factor - 1) term: the bracket is factor * max(n, L) / L, so even short texts are scaled."""
KIND = "wrong"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    stretch = factor * max(seq_len, original_max_len) / original_max_len
    new_base = base * stretch ** (d / (d - 2))
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-2 * k / d)
