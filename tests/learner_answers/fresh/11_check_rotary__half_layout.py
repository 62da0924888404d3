"""Rotates pairs (k, k + d/2) (rotate_half, Hugging Face style) instead of the interleaved pairs (2k, 2k+1)."""
KIND = "wrong"
CHECKER = "check_rotary"
LESSON = "11"
import torch


def answer(x, positions):
    d = x.shape[-1]
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = 10000.0 ** (-2 * k / d)
    angles = positions.to(torch.float64)[:, None] * omega
    cos = torch.cat([angles.cos(), angles.cos()], -1).to(x.dtype)
    sin = torch.cat([angles.sin(), angles.sin()], -1).to(x.dtype)
    x1, x2 = x[..., : d // 2], x[..., d // 2 :]
    rotated = torch.cat([-x2, x1], -1)
    return x * cos + rotated * sin
