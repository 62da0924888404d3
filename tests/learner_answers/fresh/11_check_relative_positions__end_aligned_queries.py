"""Places the queries at the last len_q key positions (cache layout) although the exercise says both count from 0."""
KIND = "wrong"
CHECKER = "check_relative_positions"
LESSON = "11"
import torch


def answer(len_q, len_k, max_distance):
    offset = len_k - len_q
    m = torch.arange(len_q)[:, None] + offset
    n = torch.arange(len_k)[None, :]
    return (n - m).clamp(-max_distance, max_distance)
