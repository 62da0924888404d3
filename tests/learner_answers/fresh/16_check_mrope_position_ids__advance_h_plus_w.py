"""After an image, advances start by h + w."""
KIND = "wrong"
CHECKER = "check_mrope_position_ids"
LESSON = "16"
import torch


def answer(segments):
    cols, start = [], 0
    for kind, size in segments:
        if kind == "text":
            cols += [[start + i] * 3 for i in range(size)]
            start += size
        else:
            h, w = size
            for r in range(h):
                for c in range(w):
                    cols.append([start, start + r, start + c])
            start += h + w
    return torch.tensor(cols, dtype=torch.long).T
