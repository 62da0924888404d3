"""Clamps only from above (max=max_distance) and forgets the lower bound."""
KIND = "wrong"
CHECKER = "check_relative_positions"
LESSON = "11"
import torch


def answer(len_q, len_k, max_distance):
    m = torch.arange(len_q).unsqueeze(1)
    n = torch.arange(len_k).unsqueeze(0)
    return torch.clamp(n - m, max=max_distance)
