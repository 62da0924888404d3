"""Pairs feature k with k + d/2 (halves of the whole head) for k < r/2, instead of k + r/2."""
KIND = "wrong"
CHECKER = "check_partial_rotary"
LESSON = "16"
import torch


def answer(x, positions, rotary_dim, base):
    d = x.shape[-1]
    r = rotary_dim
    k = torch.arange(r // 2, dtype=torch.float64)
    omega = base ** (-2 * k / r)
    ang = torch.as_tensor(positions).to(torch.float64)[:, None] * omega
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    out = x.clone()
    a, b = x[:, : r // 2], x[:, d // 2 : d // 2 + r // 2]
    out[:, : r // 2] = a * cos - b * sin
    out[:, d // 2 : d // 2 + r // 2] = a * sin + b * cos
    return out
