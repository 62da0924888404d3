"""Puts 1 - eps on the right token and eps/V on the others (forgets the right token also gets eps/V)."""
KIND = "wrong"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    V = vocab_size
    right = 1 - eps
    return -(right * math.log(right) + (V - 1) * (eps / V) * math.log(eps / V))
