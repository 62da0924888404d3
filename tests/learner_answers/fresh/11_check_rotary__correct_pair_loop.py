"""correct: a Python loop over the pairs, each rotated with its own cos and sin, written into a new tensor."""
KIND = "correct"
CHECKER = "check_rotary"
LESSON = "11"
import math
import torch


def answer(x, positions):
    d = x.shape[-1]
    pos = positions.to(torch.float64)
    out = x.clone()
    for k in range(d // 2):
        omega = 1.0 / (10000.0 ** (2 * k / d))
        c = torch.cos(pos * omega).to(x.dtype)
        s = torch.sin(pos * omega).to(x.dtype)
        a = x[..., 2 * k]
        b = x[..., 2 * k + 1]
        out[..., 2 * k] = a * c - b * s
        out[..., 2 * k + 1] = a * s + b * c
    return out
