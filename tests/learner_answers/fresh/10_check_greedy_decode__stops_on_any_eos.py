"""Stops as soon as any row produces EOS, not once every row has."""
KIND = "wrong"
CHECKER = "check_greedy_decode"
LESSON = "10"
import torch

def answer(model, src, max_len, bos_id, eos_id):
    memory = model.encode(src)
    ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
    for _ in range(max_len):
        nxt = model.decode(ys, memory)[:, -1].argmax(-1)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        if (nxt == eos_id).any():
            break
    return ys[:, 1:]
