"""Uses rotate_half with the sign on the wrong half, (x1, x2) -> (x2, -x1), rotating by -angle."""
KIND = "wrong"
CHECKER = "check_partial_rotary"
LESSON = "16"
import torch


def answer(x, positions, rotary_dim, base):
    r = rotary_dim
    k = torch.arange(r // 2, dtype=torch.float64)
    omega = base ** (-2 * k / r)
    ang = torch.as_tensor(positions).to(torch.float64)[:, None] * omega
    cos = torch.cat([ang.cos(), ang.cos()], -1).to(x.dtype)
    sin = torch.cat([ang.sin(), ang.sin()], -1).to(x.dtype)
    xr, rest = x[:, :r], x[:, r:]
    rot = torch.cat([xr[:, r // 2 :], -xr[:, : r // 2]], -1)
    return torch.cat([xr * cos + rot * sin, rest], -1)
