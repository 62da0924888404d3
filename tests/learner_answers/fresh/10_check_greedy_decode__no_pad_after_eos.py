"""Keeps appending the model's tokens after a row produced EOS instead of padding with 0."""
KIND = "wrong"
CHECKER = "check_greedy_decode"
LESSON = "10"
import torch

def answer(model, src, max_len, bos_id, eos_id):
    memory = model.encode(src)
    ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        nxt = model.decode(ys, memory)[:, -1, :].argmax(dim=-1)
        ys = torch.cat([ys, nxt.unsqueeze(1)], dim=1)
        done = done | (nxt == eos_id)
        if done.all():
            break
    return ys[:, 1:]
