"""Computes the entropy in bits with log2 rather than in nats."""
KIND = "wrong"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    V = vocab_size
    right = 1 - eps + eps / V
    return -(right * math.log2(right) + (V - 1) * (eps / V) * math.log2(eps / V))
