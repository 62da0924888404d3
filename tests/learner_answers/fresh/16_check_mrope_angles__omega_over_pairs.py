"""Writes omega_k = base^(-2k/(d_k/2)), dividing by the number of pairs instead of the width."""
KIND = "wrong"
CHECKER = "check_mrope_angles"
LESSON = "16"
import torch


def answer(position_ids, mrope_section, d_k, base):
    half = d_k // 2
    axes = torch.repeat_interleave(torch.arange(3), torch.tensor(list(mrope_section)))
    k = torch.arange(half, dtype=torch.float64)
    omega = base ** (-2 * k / half)
    ids = position_ids.to(torch.float64)
    return ids[axes].T * omega
