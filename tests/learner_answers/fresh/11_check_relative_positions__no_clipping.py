"""Forgets to clip the offsets to [-max_distance, max_distance]."""
KIND = "wrong"
CHECKER = "check_relative_positions"
LESSON = "11"
import torch


def answer(len_q, len_k, max_distance):
    m = torch.arange(len_q)[:, None]
    n = torch.arange(len_k)[None, :]
    return n - m
