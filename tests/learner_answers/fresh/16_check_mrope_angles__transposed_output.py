"""Returns the angles as (d_k/2, L) instead of (L, d_k/2)."""
KIND = "wrong"
CHECKER = "check_mrope_angles"
LESSON = "16"
import torch


def answer(position_ids, mrope_section, d_k, base):
    half = d_k // 2
    axes = torch.repeat_interleave(torch.arange(3), torch.tensor(list(mrope_section)))
    k = torch.arange(half, dtype=torch.float64)
    omega = base ** (-2 * k / d_k)
    ids = position_ids.to(torch.float64)
    return ids[axes] * omega[:, None]
