"""correct: complex numbers a + ib with a the first half and b the second half of the rotary part, times exp(i angle)."""
KIND = "correct"
CHECKER = "check_partial_rotary"
LESSON = "16"
import torch


def answer(x, positions, rotary_dim, base):
    r = rotary_dim
    h = r // 2
    k = torch.arange(h, dtype=torch.float64)
    ang = torch.as_tensor(positions).to(torch.float64)[:, None] * torch.pow(torch.tensor(float(base), dtype=torch.float64), -2 * k / r)
    xd = x.to(torch.float64)
    z = torch.complex(xd[:, :h], xd[:, h:r]) * torch.exp(1j * ang)
    return torch.cat([z.real, z.imag, xd[:, r:]], dim=-1).to(x.dtype)
