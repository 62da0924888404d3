"""Uses the length ratio max(n, L)/L itself as the NTK factor, ignoring the configured factor."""
KIND = "wrong"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    ratio = max(seq_len, original_max_len) / original_max_len
    new_base = base * ratio ** (d / (d - 2))
    k = torch.arange(d // 2, dtype=torch.float64)
    return new_base ** (-2 * k / d)
