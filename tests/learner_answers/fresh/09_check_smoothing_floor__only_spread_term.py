"""Keeps only the term of the V-1 wrong tokens and forgets the right token's term."""
KIND = "wrong"
CHECKER = "check_smoothing_floor"
LESSON = "09"
import math

def answer(vocab_size, eps):
    V = vocab_size
    return -(V - 1) * (eps / V) * math.log(eps / V)
