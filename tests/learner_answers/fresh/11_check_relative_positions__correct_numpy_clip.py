"""correct: NumPy subtract.outer and np.clip, converted to an int64 torch tensor."""
KIND = "correct"
CHECKER = "check_relative_positions"
LESSON = "11"
import numpy as np
import torch


def answer(len_q, len_k, max_distance):
    table = np.subtract.outer(np.arange(len_k), np.arange(len_q)).T
    return torch.from_numpy(np.clip(table, -max_distance, max_distance).astype(np.int64))
