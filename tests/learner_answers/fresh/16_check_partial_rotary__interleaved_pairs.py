"""Pairs neighbouring features (2k, 2k+1) inside the rotary part instead of (k, k + r/2)."""
KIND = "wrong"
CHECKER = "check_partial_rotary"
LESSON = "16"
import torch


def answer(x, positions, rotary_dim, base):
    r = rotary_dim
    k = torch.arange(r // 2, dtype=torch.float64)
    omega = base ** (-2 * k / r)
    ang = torch.as_tensor(positions).to(torch.float64)[:, None] * omega
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    out = x.clone()
    a, b = x[:, 0:r:2], x[:, 1:r:2]
    out[:, 0:r:2] = a * cos - b * sin
    out[:, 1:r:2] = a * sin + b * cos
    return out
