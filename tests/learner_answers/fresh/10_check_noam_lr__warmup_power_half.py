"""Warmup exponent -0.5 instead of -1.5 in the linear branch."""
KIND = "wrong"
CHECKER = "check_noam_lr"
LESSON = "10"

def answer(step, d_model, warmup_steps):
    return d_model ** -0.5 * min(step ** -0.5, step * warmup_steps ** -0.5)
