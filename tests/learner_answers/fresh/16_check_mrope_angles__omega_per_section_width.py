"""Gives each section its own frequency ladder, base^(-2j/(2*size)), like a separate rotary per axis."""
KIND = "wrong"
CHECKER = "check_mrope_angles"
LESSON = "16"
import torch


def answer(position_ids, mrope_section, d_k, base):
    ids = position_ids.to(torch.float64)
    parts = []
    for axis, size in enumerate(mrope_section):
        j = torch.arange(size, dtype=torch.float64)
        omega = base ** (-2 * j / (2 * size))
        parts.append(ids[axis][:, None] * omega)
    return torch.cat(parts, dim=1)
