"""Uses the time id (row 0) for every pair, as for text."""
KIND = "wrong"
CHECKER = "check_mrope_angles"
LESSON = "16"
import torch


def answer(position_ids, mrope_section, d_k, base):
    k = torch.arange(d_k // 2, dtype=torch.float64)
    omega = base ** (-2 * k / d_k)
    return position_ids[0].to(torch.float64)[:, None] * omega[None, :]
