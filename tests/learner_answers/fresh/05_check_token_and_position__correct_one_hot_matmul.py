"""correct: one-hot tokens times the weight matrix, then add pe[:seq_len] broadcast over the batch."""
KIND = "correct"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch
import torch.nn.functional as F

def answer(tokens, weight, pe):
    vocab_size, d_model = weight.shape
    one_hot = F.one_hot(tokens, vocab_size).to(weight.dtype)  # (B, T, V)
    emb = one_hot @ weight
    pe = torch.as_tensor(pe, dtype=weight.dtype, device=weight.device)
    return emb * d_model**0.5 + pe[: tokens.shape[1]].unsqueeze(0)
