"""correct: F.embedding per batch row in a loop, then torch.stack."""
KIND = "correct"
CHECKER = "check_token_and_position"
LESSON = "05"
import math
import torch
import torch.nn.functional as F

def answer(tokens, weight, pe):
    d_model = weight.shape[1]
    seq_len = tokens.shape[1]
    rows = []
    for b in range(tokens.shape[0]):
        rows.append(F.embedding(tokens[b], weight) * math.sqrt(d_model) + pe[:seq_len])
    return torch.stack(rows, dim=0)
