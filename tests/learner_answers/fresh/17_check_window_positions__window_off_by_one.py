"""Keeps window + 1 recent tokens (range(seen - window - 1, seen))."""
KIND = "wrong"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    if seen <= sinks + window:
        kept = list(range(seen))
    else:
        kept = list(range(sinks)) + list(range(seen - window - 1, seen))
    return torch.tensor([[t, p] for p, t in enumerate(kept)], dtype=torch.long)
