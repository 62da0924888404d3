"""Gives each kept token its text index as rotary position (the plain cache) instead of its place in the cache."""
KIND = "wrong"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    if seen <= sinks + window:
        kept = list(range(seen))
    else:
        kept = list(range(sinks)) + list(range(seen - window, seen))
    return torch.tensor([[i, i] for i in kept], dtype=torch.long)
