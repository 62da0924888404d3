"""Adds 1 to the step, as if it were counted from 0."""
KIND = "wrong"
CHECKER = "check_noam_lr"
LESSON = "10"

def answer(step, d_model, warmup_steps):
    step = step + 1
    return d_model ** -0.5 * min(step ** -0.5, step * warmup_steps ** -1.5)
