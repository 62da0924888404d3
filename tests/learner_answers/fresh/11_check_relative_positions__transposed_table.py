"""Puts keys on the rows and queries on the columns, giving a (len_k, len_q) table."""
KIND = "wrong"
CHECKER = "check_relative_positions"
LESSON = "11"
import torch


def answer(len_q, len_k, max_distance):
    n = torch.arange(len_k)[:, None]
    m = torch.arange(len_q)[None, :]
    return (n - m).clamp(-max_distance, max_distance)
