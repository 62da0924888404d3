"""correct: the recursive get_slopes of the authors' code, with math.log2 and a list, as a float32 tensor."""
KIND = "correct"
CHECKER = "check_alibi_slopes"
LESSON = "11"
import math
import torch


def answer(num_heads):
    def get_slopes_power_of_2(n):
        start = 2 ** (-(2 ** -(math.log2(n) - 3)))
        ratio = start
        return [start * ratio**i for i in range(n)]

    def get_slopes(n):
        if math.log2(n).is_integer():
            return get_slopes_power_of_2(n)
        closest = 2 ** math.floor(math.log2(n))
        return get_slopes_power_of_2(closest) + get_slopes(2 * closest)[0::2][: n - closest]

    return torch.tensor(get_slopes(num_heads), dtype=torch.float32)
