"""Shifts by two: scores logits[:, t-2] against token t."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    preds = logits.argmax(dim=-1)
    return (preds[:, :-2] == tokens[:, 2:]).float().mean(dim=0)
