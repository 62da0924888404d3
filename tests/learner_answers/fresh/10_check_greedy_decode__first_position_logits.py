"""Reads the logits at position 0 instead of the last position of the prefix."""
KIND = "wrong"
CHECKER = "check_greedy_decode"
LESSON = "10"
import torch

def answer(model, src, max_len, bos_id, eos_id):
    memory = model.encode(src)
    ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        nxt = model.decode(ys, memory)[:, 0].argmax(-1)
        nxt = torch.where(done, torch.zeros_like(nxt), nxt)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    return ys[:, 1:]
