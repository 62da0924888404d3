"""correct: an if/else on step <= warmup with math.sqrt."""
KIND = "correct"
CHECKER = "check_noam_lr"
LESSON = "10"
import math

def answer(step, d_model, warmup_steps):
    if step <= warmup_steps:
        return step / (math.sqrt(d_model) * warmup_steps * math.sqrt(warmup_steps))
    return 1.0 / (math.sqrt(d_model) * math.sqrt(step))
