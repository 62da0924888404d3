"""correct: the PyTorch tutorial's exp(-log(10000) * 2k / d) form in torch, returned as a NumPy array."""
KIND = "correct"
CHECKER = "check_sinusoidal"
LESSON = "13"
import math
import torch


def answer(num_positions, d_model):
    position = torch.arange(num_positions, dtype=torch.float64).unsqueeze(1)
    div_term = torch.exp(torch.arange(0, d_model, 2, dtype=torch.float64) * (-math.log(10000.0) / d_model))
    pe = torch.zeros(num_positions, d_model, dtype=torch.float64)
    pe[:, 0::2] = torch.sin(position * div_term)
    pe[:, 1::2] = torch.cos(position * div_term)
    return pe.numpy()
