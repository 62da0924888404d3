"""Scores every token from t = 1 on (logits[:, :-1] against tokens[:, 1:]), one position too many."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    preds = logits[:, :-1].argmax(dim=-1)
    return (preds == tokens[:, 1:]).float().mean(dim=0)
