"""Swaps sin and cos in the rotation matrix."""
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
    x_even, x_odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x_even * sin - x_odd * cos
    out[..., 1::2] = x_even * cos + x_odd * sin
    return out
