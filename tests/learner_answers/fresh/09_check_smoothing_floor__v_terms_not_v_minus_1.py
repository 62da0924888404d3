"""Counts V wrong tokens instead of V - 1 in the second term."""
KIND = "wrong"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    V = vocab_size
    right = 1 - eps + eps / V
    return -(right * math.log(right) + V * (eps / V) * math.log(eps / V))
