"""Beyond L divides the frequencies by the bracket (position interpolation) instead of raising the base."""
KIND = "wrong"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    stretch = factor * max(seq_len, original_max_len) / original_max_len - (factor - 1)
    k = torch.arange(d // 2, dtype=torch.float64)
    return base ** (-2 * k / d) / stretch
