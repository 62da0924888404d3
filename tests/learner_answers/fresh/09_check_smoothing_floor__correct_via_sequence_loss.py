"""correct: evaluates sequence_loss with label smoothing at the prediction p = q (float64 logits log q), which equals the floor."""
KIND = "correct"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math
import torch
from helpers.training import sequence_loss

def answer(vocab_size, eps):
    V = vocab_size
    q = torch.full((V,), eps / V, dtype=torch.float64)
    q[1] += 1 - eps
    logits = torch.log(q).reshape(1, 1, V)
    targets = torch.tensor([[1]])
    return sequence_loss(logits, targets, pad_id=0, label_smoothing=eps).item()
