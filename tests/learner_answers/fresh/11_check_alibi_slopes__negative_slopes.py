"""Returns the slopes with the minus sign of the bias folded in (-m_h instead of m_h)."""
KIND = "wrong"
CHECKER = "check_alibi_slopes"
LESSON = "11"
import math
import torch


def answer(num_heads):
    def pow2(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]
    if num_heads & (num_heads - 1) == 0:
        slopes = pow2(num_heads)
    else:
        p = 2 ** math.floor(math.log2(num_heads))
        slopes = pow2(p) + pow2(2 * p)[0::2][: num_heads - p]
    return -torch.tensor(slopes)
