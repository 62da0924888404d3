"""Integer division in the exponent (2*k // d_model), which is 0 for every pair."""
KIND = "wrong"
CHECKER = "check_wavelengths"
LESSON = "03"
import math

def answer(d_model, base):
    return [2 * math.pi * base ** (2 * k // d_model) for k in range(d_model // 2)]
