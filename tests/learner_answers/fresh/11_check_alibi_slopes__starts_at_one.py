"""Starts the geometric sequence at h = 0, so the first slope is 1 and the last is 2^(-8(n-1)/n)."""
KIND = "wrong"
CHECKER = "check_alibi_slopes"
LESSON = "11"
import math
import torch


def answer(num_heads):
    def pow2(n):
        return [2.0 ** (-8.0 * h / n) for h in range(n)]
    if num_heads & (num_heads - 1) == 0:
        return torch.tensor(pow2(num_heads))
    p = 2 ** math.floor(math.log2(num_heads))
    return torch.tensor(pow2(p) + pow2(2 * p)[0::2][: num_heads - p])
