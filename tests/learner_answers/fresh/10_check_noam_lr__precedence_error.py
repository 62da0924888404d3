"""Puts step inside the power: (step * warmup) ** -1.5 instead of step * warmup ** -1.5."""
KIND = "wrong"
CHECKER = "check_noam_lr"
LESSON = "10"

def answer(step, d_model, warmup_steps):
    return d_model ** -0.5 * min(step ** -0.5, (step * warmup_steps) ** -1.5)
