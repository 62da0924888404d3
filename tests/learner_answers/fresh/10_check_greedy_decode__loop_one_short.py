"""Loop bound off by one: range(max_len - 1), so at most max_len - 1 tokens are generated."""
KIND = "wrong"
CHECKER = "check_greedy_decode"
LESSON = "10"
import torch

def answer(model, src, max_len, bos_id, eos_id):
    memory = model.encode(src)
    ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
    done = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
    for _ in range(max_len - 1):
        nxt = model.decode(ys, memory)[:, -1].argmax(-1)
        nxt[done] = 0
        ys = torch.cat([ys, nxt[:, None]], dim=1)
        done |= nxt == eos_id
        if done.all():
            break
    return ys[:, 1:]
