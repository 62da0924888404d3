"""correct: builds the target distribution q as a float64 tensor and returns -(q log q).sum() as a float."""
KIND = "correct"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import torch

def answer(vocab_size, eps):
    q = torch.full((vocab_size,), eps / vocab_size, dtype=torch.float64)
    q[0] += 1 - eps
    ent = -(q * torch.log(q)).sum() if eps > 0 else -(q[0] * torch.log(q[0]))
    return float(ent)
