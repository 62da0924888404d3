"""correct: loops over the three sections with a running pair index, filling an (L, d_k/2) float64 tensor."""
KIND = "correct"
CHECKER = "check_mrope_angles"
LESSON = "16"
import torch


def answer(position_ids, mrope_section, d_k, base):
    L = position_ids.shape[1]
    out = torch.zeros(L, d_k // 2, dtype=torch.float64)
    k = 0
    for axis in range(3):
        for _ in range(mrope_section[axis]):
            w = base ** (-2.0 * k / d_k)
            out[:, k] = position_ids[axis].to(torch.float64) * w
            k += 1
    return out
