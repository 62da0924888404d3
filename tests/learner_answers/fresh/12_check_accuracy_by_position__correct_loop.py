"""correct: a double loop over sequences and positions t = 2 .. length-1, comparing argmax(logits[i, t-1]) with tokens[i, t]."""
KIND = "correct"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    num, length = tokens.shape
    acc = torch.zeros(length - 2, dtype=torch.float64)
    for t in range(2, length):
        hits = 0
        for i in range(num):
            if int(logits[i, t - 1].argmax()) == int(tokens[i, t]):
                hits += 1
        acc[t - 2] = hits / num
    return acc
