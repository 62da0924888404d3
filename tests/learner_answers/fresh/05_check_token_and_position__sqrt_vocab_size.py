"""Takes d_model from the wrong dimension of weight (the vocabulary size)."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    vocab_size, d_model = weight.shape[1], weight.shape[0]
    return weight[tokens] * math.sqrt(d_model) + pe[: tokens.shape[1]]
