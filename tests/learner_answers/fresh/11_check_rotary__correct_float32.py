"""correct: everything in float32 with the stacked-pairs trick (x_even, x_odd) -> stack and flatten."""
KIND = "correct"
CHECKER = "check_rotary"
LESSON = "11"
import torch


def answer(x, positions):
    d = x.shape[-1]
    k = torch.arange(0, d // 2, dtype=torch.float32)
    inv_freq = 1.0 / (10000.0 ** (2.0 * k / d))
    angles = torch.outer(positions.float(), inv_freq)
    c, s = torch.cos(angles), torch.sin(angles)
    xe, xo = x[..., ::2].float(), x[..., 1::2].float()
    out = torch.stack((xe * c - xo * s, xe * s + xo * c), dim=-1).flatten(-2)
    return out.to(x.dtype)
