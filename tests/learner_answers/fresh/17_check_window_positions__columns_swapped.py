"""Writes each row as [rotary position, text index]."""
KIND = "wrong"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    if seen <= sinks + window:
        kept = list(range(seen))
    else:
        kept = list(range(sinks)) + list(range(seen - window, seen))
    return torch.tensor([[p, t] for p, t in enumerate(kept)], dtype=torch.long)
