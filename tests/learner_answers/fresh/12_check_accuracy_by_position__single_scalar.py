"""Returns the overall accuracy (a scalar mean over everything) instead of one value per position."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    preds = logits[:, 1:-1].argmax(dim=-1)
    return (preds == tokens[:, 2:]).float().mean()
