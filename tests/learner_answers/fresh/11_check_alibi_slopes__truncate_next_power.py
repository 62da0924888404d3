"""Takes the slopes of the next power of two above and keeps the first num_heads of them."""
KIND = "wrong"
CHECKER = "check_alibi_slopes"
LESSON = "11"
import math
import torch


def answer(num_heads):
    p = 2 ** math.ceil(math.log2(num_heads))
    start = 2.0 ** (-8.0 / p)
    return torch.tensor([start ** (h + 1) for h in range(p)][:num_heads])
