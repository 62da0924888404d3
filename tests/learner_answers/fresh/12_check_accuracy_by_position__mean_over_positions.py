"""Averages over the positions (dim 1) instead of over the sequences, returning one number per sequence."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    preds = logits[:, 1:-1].argmax(dim=-1)
    return (preds == tokens[:, 2:]).float().mean(dim=1)
