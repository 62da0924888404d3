"""Forgot to scale the token embeddings by sqrt(d_model)."""
KIND = "wrong"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch

def answer(tokens, weight, pe):
    seq_len = tokens.shape[1]
    return weight[tokens] + pe[:seq_len]
