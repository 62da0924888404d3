"""Numbers the window's slots from 0 again instead of continuing after the sinks."""
KIND = "wrong"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    if seen <= sinks + window:
        return torch.tensor([[i, i] for i in range(seen)], dtype=torch.long)
    rows = [[i, i] for i in range(sinks)]
    rows += [[seen - window + j, j] for j in range(window)]
    return torch.tensor(rows, dtype=torch.long)
