"""Multiplies by sqrt(d_model) instead of dividing."""
KIND = "wrong"
CHECKER = "check_noam_lr"
LESSON = "10"
import math

def answer(step, d_model, warmup_steps):
    return math.sqrt(d_model) * min(step ** -0.5, step * warmup_steps ** -1.5)
