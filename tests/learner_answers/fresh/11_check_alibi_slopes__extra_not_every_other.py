"""For non-powers of two, fills the extra heads with the first n - p slopes of 2p heads instead of every other one."""
KIND = "wrong"
CHECKER = "check_alibi_slopes"
LESSON = "11"
import math
import torch


def answer(num_heads):
    def pow2(n):
        start = 2.0 ** (-8.0 / n)
        return [start ** (h + 1) for h in range(n)]
    if math.log2(num_heads).is_integer():
        return torch.tensor(pow2(num_heads))
    p = 2 ** int(math.log2(num_heads))
    return torch.tensor(pow2(p) + pow2(2 * p)[: num_heads - p])
