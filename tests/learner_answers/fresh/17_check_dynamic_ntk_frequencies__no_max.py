"""Uses seq_len directly instead of max(seq_len, L), so short texts shrink the base."""
KIND = "wrong"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    stretch = factor * seq_len / original_max_len - (factor - 1)
    new_base = base * stretch ** (d / (d - 2))
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-2 * k / d)
