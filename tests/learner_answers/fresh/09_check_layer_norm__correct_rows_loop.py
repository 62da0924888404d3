"""correct: flattens to rows and normalises each row in a Python loop, then reshapes back."""
KIND = "correct"
CHECKER = "check_layer_norm"
LESSON = "09"
import torch

def answer(x, gamma, beta, eps):
    rows = x.reshape(-1, x.shape[-1])
    out = []
    for r in rows:
        m = r.mean()
        v = ((r - m) ** 2).mean()
        out.append((r - m) / (v + eps).sqrt() * gamma + beta)
    if not out:
        return x.clone()
    return torch.stack(out).reshape(x.shape)
