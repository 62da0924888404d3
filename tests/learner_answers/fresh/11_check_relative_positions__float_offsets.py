"""Builds the positions with torch.linspace, so the table is float, not an integer tensor usable as indices."""
KIND = "wrong"
CHECKER = "check_relative_positions"
LESSON = "11"
import torch


def answer(len_q, len_k, max_distance):
    m = torch.linspace(0, len_q - 1, len_q)[:, None]
    n = torch.linspace(0, len_k - 1, len_k)[None, :]
    return (n - m).clamp(-max_distance, max_distance)
