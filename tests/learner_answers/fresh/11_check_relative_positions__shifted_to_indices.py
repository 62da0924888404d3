"""Returns the embedding-row indices (offset + max_distance) instead of the offsets themselves."""
KIND = "wrong"
CHECKER = "check_relative_positions"
LESSON = "11"
import torch


def answer(len_q, len_k, max_distance):
    m = torch.arange(len_q)[:, None]
    n = torch.arange(len_k)[None, :]
    return (n - m).clamp(-max_distance, max_distance) + max_distance
