"""Always takes the sinks and the last window tokens, so with few tokens seen the two overlap and tokens appear twice."""
KIND = "wrong"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    rows = [[i, i] for i in range(min(sinks, seen))]
    start = max(seen - window, 0)
    for j, i in enumerate(range(start, seen)):
        rows.append([i, len(rows)])
    return torch.tensor(rows, dtype=torch.long)
