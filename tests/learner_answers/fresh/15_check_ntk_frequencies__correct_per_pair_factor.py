"""correct: keeps the plain frequencies and slows pair k by factor^(2k/(d-2)), which is the same as raising the base."""
KIND = "correct"
CHECKER = "check_ntk_frequencies"
LESSON = "15"
import torch


def answer(d, factor, base):
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = base ** (-2.0 * k / d)
    return omega * factor ** (-2.0 * k / (d - 2))
