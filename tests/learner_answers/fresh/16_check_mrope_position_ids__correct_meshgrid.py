"""correct: torch.meshgrid for images (and videos, one time id per frame), start advanced by max(h, w)."""
KIND = "correct"
CHECKER = "check_mrope_position_ids"
LESSON = "16"
import torch


def answer(segments):
    parts, start = [], 0
    for kind, size in segments:
        if kind == "text":
            parts.append(torch.arange(start, start + size).repeat(3, 1))
            start += size
            continue
        if kind == "image":
            t, (h, w) = 1, size
        else:
            t, h, w = size
        f, r, c = torch.meshgrid(torch.arange(t), torch.arange(h), torch.arange(w), indexing="ij")
        parts.append(torch.stack([f.flatten(), r.flatten(), c.flatten()]) + start)
        start += max(h, w)
    return torch.cat(parts, dim=1).long()
