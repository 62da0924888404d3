"""Reads seen as the tokens before the newest one, so the window ends at text index seen - 2 .. and the newest token is missing."""
KIND = "wrong"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    last = seen - 1  # tokens already cached, the newest not yet
    if last <= sinks + window:
        kept = list(range(last))
    else:
        kept = list(range(sinks)) + list(range(last - window, last))
    return torch.tensor([[t, p] for p, t in enumerate(kept)], dtype=torch.long)
