"""correct: views each pair as a complex number and multiplies by exp(i * angle), in float64."""
KIND = "correct"
CHECKER = "check_rotary"
LESSON = "11"
import torch


def answer(x, positions):
    d = x.shape[-1]
    k = torch.arange(d // 2, dtype=torch.float64)
    omega = 10000.0 ** (-2.0 * k / d)
    angles = positions.to(torch.float64)[:, None] * omega  # (L, d/2)
    z = torch.view_as_complex(x.to(torch.float64).reshape(*x.shape[:-1], d // 2, 2).contiguous())
    z = z * torch.polar(torch.ones_like(angles), angles)
    return torch.view_as_real(z).reshape(x.shape).to(x.dtype)
