"""Takes the max of the two branches instead of the min."""
KIND = "wrong"
CHECKER = "check_noam_lr"
LESSON = "10"

def answer(step, d_model, warmup_steps):
    return d_model ** -0.5 * max(step ** -0.5, step * warmup_steps ** -1.5)
