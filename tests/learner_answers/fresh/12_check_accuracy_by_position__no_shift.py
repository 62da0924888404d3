"""Compares the prediction at position t with token t (no shift), so each output is scored on the token it has already read."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    preds = logits.argmax(dim=-1)  # (num, length)
    return (preds[:, 2:] == tokens[:, 2:]).float().mean(dim=0)
