"""Returns the mean softmax probability of the right token instead of the argmax accuracy."""
KIND = "wrong"
CHECKER = "check_accuracy_by_position"
LESSON = "12"
import torch


def answer(logits, tokens):
    probs = torch.softmax(logits[:, 1:-1], dim=-1)
    p_right = probs.gather(-1, tokens[:, 2:].unsqueeze(-1)).squeeze(-1)
    return p_right.mean(dim=0)
