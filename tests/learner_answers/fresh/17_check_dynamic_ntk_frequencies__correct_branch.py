"""correct: returns plain rotary frequencies up to L and the NTK base only beyond, written as an if."""
KIND = "correct"
CHECKER = "check_dynamic_ntk_frequencies"
LESSON = "17"
import torch


def answer(d, factor, base, original_max_len, seq_len):
    k = torch.arange(0, d, 2, dtype=torch.float64)  # 2k
    if seq_len <= original_max_len:
        return 1.0 / (base ** (k / d))
    scale = (factor * seq_len / original_max_len) - (factor - 1)
    new_base = base * scale ** (d / (d - 2))
    return 1.0 / (new_base ** (k / d))
