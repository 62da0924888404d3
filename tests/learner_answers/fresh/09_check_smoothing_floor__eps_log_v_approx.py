"""Uses the approximation eps * log(V) (the big term only)."""
KIND = "wrong"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    return eps * math.log(vocab_size)
