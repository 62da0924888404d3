"""Rotates the last rotary_dim features and passes the first ones through."""
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
    cos = torch.cat([ang.cos(), ang.cos()], -1).to(x.dtype)
    sin = torch.cat([ang.sin(), ang.sin()], -1).to(x.dtype)
    xr = x[:, d - r :]
    rot = torch.cat([-xr[:, r // 2 :], xr[:, : r // 2]], -1)
    return torch.cat([x[:, : d - r], xr * cos + rot * sin], -1)
