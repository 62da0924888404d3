"""correct: computes the min in log space and exponentiates."""
KIND = "correct"
CHECKER = "check_noam_lr"
LESSON = "10"
import math

def answer(step, d_model, warmup_steps):
    a = -0.5 * math.log(step)
    b = math.log(step) - 1.5 * math.log(warmup_steps)
    return math.exp(-0.5 * math.log(d_model) + min(a, b))
