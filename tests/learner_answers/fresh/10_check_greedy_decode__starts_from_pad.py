"""Starts the decoder from the padding id 0 instead of bos_id."""
KIND = "wrong"
CHECKER = "check_greedy_decode"
LESSON = "10"
import torch

def answer(model, src, max_len, bos_id, eos_id):
    memory = model.encode(src)
    ys = torch.zeros((src.shape[0], 1), dtype=torch.long, device=src.device)
    done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
    for _ in range(max_len):
        nxt = model.decode(ys, memory)[:, -1].argmax(-1)
        nxt = nxt.masked_fill(done, 0)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    return ys[:, 1:]
