"""Updates x in place, writing the new first half before computing the second half from it."""
KIND = "wrong"
CHECKER = "check_partial_rotary"
LESSON = "16"
import torch


def answer(x, positions, rotary_dim, base):
    r = rotary_dim
    h = r // 2
    k = torch.arange(h, dtype=torch.float64)
    omega = base ** (-2 * k / r)
    ang = torch.as_tensor(positions).to(torch.float64)[:, None] * omega
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x[:, :h] = x[:, :h] * cos - x[:, h:r] * sin
    x[:, h:r] = x[:, :h] * sin + x[:, h:r] * cos
    return x
