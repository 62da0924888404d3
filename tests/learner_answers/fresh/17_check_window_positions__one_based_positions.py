"""Numbers the cache slots from 1 instead of 0."""
KIND = "wrong"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    if seen <= sinks + window:
        kept = list(range(seen))
    else:
        kept = list(range(sinks)) + list(range(seen - window, seen))
    return torch.tensor([[t, p + 1] for p, t in enumerate(kept)], dtype=torch.long)
