"""correct: NumPy version (argmax on the vocabulary axis, shift by one, mean over axis 0), returned as a tensor."""
KIND = "correct"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import numpy as np
import torch


def answer(logits, tokens):
    lg = logits.detach().cpu().numpy()
    tk = tokens.detach().cpu().numpy()
    hit = lg.argmax(axis=2)[:, 1:-1] == tk[:, 2:]
    return torch.from_numpy(hit.mean(axis=0))
