"""Writes the rotated even features back into x before computing the odd ones: modifies the input and uses the already rotated even value."""
KIND = "wrong"
CHECKER = "check_rotary"
LESSON = "11"
import torch


def answer(x, positions):
    d = x.shape[-1]
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = 10000.0 ** (-2 * k / d)
    angles = positions.to(torch.float64)[:, None] * omega
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x[..., 0::2] = x[..., 0::2] * cos - x[..., 1::2] * sin
    x[..., 1::2] = x[..., 0::2] * sin + x[..., 1::2] * cos
    return x
