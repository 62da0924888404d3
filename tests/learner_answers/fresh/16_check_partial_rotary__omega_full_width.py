"""Uses the full width d in the frequencies, base^(-2k/d), instead of base^(-2k/r) (mixes it up with p-RoPE)."""
KIND = "wrong"
CHECKER = "check_partial_rotary"
LESSON = "16"
import torch


def answer(x, positions, rotary_dim, base):
    d = x.shape[-1]
    r = rotary_dim
    k = torch.arange(r // 2, dtype=torch.float64)
    omega = base ** (-2 * k / d)
    ang = torch.as_tensor(positions).to(torch.float64)[:, None] * omega
    cos, sin = ang.cos().to(x.dtype), ang.sin().to(x.dtype)
    x1, x2 = x[:, : r // 2], x[:, r // 2 : r]
    return torch.cat([x1 * cos - x2 * sin, x1 * sin + x2 * cos, x[:, r:]], dim=-1)
