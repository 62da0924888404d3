"""Forgets the d_model ** -0.5 factor."""
KIND = "wrong"
CHECKER = "check_noam_lr"
LESSON = "10"

def answer(step, d_model, warmup_steps):
    return min(step ** -0.5, step * warmup_steps ** -1.5)
