"""Uses torch.arange(seq_len) as the positions and ignores the positions argument."""
KIND = "wrong"
CHECKER = "check_rotary"
LESSON = "11"
import torch


def answer(x, positions):
    seq_len, d = x.shape[-2], x.shape[-1]
    t = torch.arange(seq_len, dtype=torch.float64)
    k = torch.arange(d // 2, dtype=torch.float64)
    angles = t[:, None] * 10000.0 ** (-2 * k / d)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    x_even, x_odd = x[..., 0::2], x[..., 1::2]
    out = torch.empty_like(x)
    out[..., 0::2] = x_even * cos - x_odd * sin
    out[..., 1::2] = x_even * sin + x_odd * cos
    return out
