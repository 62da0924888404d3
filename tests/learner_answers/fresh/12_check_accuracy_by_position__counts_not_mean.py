"""Sums the correct predictions over the sequences and forgets to divide by their number."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    preds = logits[:, 1:-1].argmax(dim=-1)
    return (preds == tokens[:, 2:]).float().sum(dim=0)
