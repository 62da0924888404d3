"""correct: the usual PyTorch recipe (exp/log div_term) in float32, returned as a torch tensor."""
KIND = "correct"
CHECKER = "check_sinusoidal"
LESSON = "03"
import math
import torch

def answer(num_positions, d_model):
    position = torch.arange(num_positions, dtype=torch.float32).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float32) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(num_positions, d_model)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe
