"""correct: a loop over pairs (k, k + r/2) with math.cos/sin per position, on a clone of x."""
KIND = "correct"
CHECKER = "check_partial_rotary"
LESSON = "16"
import math
import torch


def answer(x, positions, rotary_dim, base):
    r = rotary_dim
    h = r // 2
    out = x.clone()
    pos = [float(p) for p in positions]
    for k in range(h):
        w = base ** (-2.0 * k / r)
        for t, p in enumerate(pos):
            c, s = math.cos(p * w), math.sin(p * w)
            a, b = float(x[t, k]), float(x[t, k + h])
            out[t, k] = a * c - b * s
            out[t, k + h] = a * s + b * c
    return out
