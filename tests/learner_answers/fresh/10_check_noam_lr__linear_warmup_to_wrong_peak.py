"""Writes warmup as d^-0.5 * step / warmup, so the peak is d^-0.5 instead of d^-0.5 * warmup^-0.5 (jump at the end of warmup)."""
KIND = "wrong"
CHECKER = "check_noam_lr"
LESSON = "10"
import math

def answer(step, d_model, warmup_steps):
    if step < warmup_steps:
        return step / warmup_steps / math.sqrt(d_model)
    return 1 / math.sqrt(d_model * step)
