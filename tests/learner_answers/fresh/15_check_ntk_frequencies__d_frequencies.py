"""Returns d frequencies (one per dimension, k = 0 .. d-1) instead of d/2."""
KIND = "wrong"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import torch


def answer(d, factor, base):
    new_base = base * factor ** (d / (d - 2))
    k = torch.arange(d, dtype=torch.float64)
    return new_base ** (-2 * k / d)
