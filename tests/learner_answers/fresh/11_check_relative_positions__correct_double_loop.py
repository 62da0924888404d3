"""correct: a double Python loop with min/max, turned into a long tensor at the end."""
KIND = "correct"
CHECKER = "check_relative_positions"
LESSON = "11"
import torch


def answer(len_q, len_k, max_distance):
    rows = []
    for m in range(len_q):
        row = []
        for n in range(len_k):
            row.append(max(-max_distance, min(max_distance, n - m)))
        rows.append(row)
    return torch.tensor(rows, dtype=torch.long).reshape(len_q, len_k)
