"""correct: torch.cat of the sink indices and the window indices, stacked with arange of the slots."""
KIND = "correct"
CHECKER = "check_window_positions"
LESSON = "17"
import torch


def answer(seen, sinks, window):
    if seen > sinks + window:
        text = torch.cat([torch.arange(sinks), torch.arange(seen - window, seen)])
    else:
        text = torch.arange(seen)
    return torch.stack([text, torch.arange(len(text))], dim=1)
