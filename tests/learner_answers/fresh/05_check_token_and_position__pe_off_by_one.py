"""Takes rows 1..seq_len of pe, skipping position 0."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    seq_len = tokens.shape[1]
    return weight[tokens] * math.sqrt(weight.shape[1]) + pe[1 : seq_len + 1]
