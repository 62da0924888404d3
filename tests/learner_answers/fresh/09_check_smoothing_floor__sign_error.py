"""Forgets the minus sign of the entropy and returns sum q log q (a negative number)."""
KIND = "wrong"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    V = vocab_size
    right = 1 - eps + eps / V
    return right * math.log(right) + (V - 1) * (eps / V) * math.log(eps / V)
