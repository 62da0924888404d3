"""correct: written as -(r log r) - eps (V-1)/V log(eps/V) with r = 1 - eps (V-1)/V, using xlogy-style guards."""
KIND = "correct"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    V = vocab_size
    spread = eps / V
    r = 1 - spread * (V - 1)
    h = 0.0
    if r > 0:
        h -= r * math.log(r)
    if spread > 0:
        h -= (V - 1) * spread * math.log(spread)
    return h
