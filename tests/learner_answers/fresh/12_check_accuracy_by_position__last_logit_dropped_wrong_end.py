"""Drops the first two outputs instead of the first and the last: logits[:, 2:] scored against tokens[:, 1:-1] (the shift in the wrong direction)."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    preds = logits[:, 2:].argmax(dim=-1)
    return (preds == tokens[:, 1:-1]).float().mean(dim=0)
