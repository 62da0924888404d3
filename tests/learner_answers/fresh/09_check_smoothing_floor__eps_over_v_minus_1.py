"""Uses the other convention: 1 - eps on the right token and eps/(V-1) on each wrong one, not sequence_loss's."""
KIND = "wrong"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    V = vocab_size
    right = 1 - eps
    other = eps / (V - 1)
    return -(right * math.log(right) + (V - 1) * other * math.log(other))
