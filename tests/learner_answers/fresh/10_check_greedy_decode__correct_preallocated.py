"""correct: preallocates a (batch, max_len + 1) buffer of zeros, writes one column per step, then trims to the steps taken."""
KIND = "correct"
CHECKER = "check_greedy_decode"
LESSON = "10"
import torch

def answer(model, src, max_len, bos_id, eos_id):
    model.eval()
    with torch.no_grad():
        memory = model.encode(src)
        b = src.shape[0]
        buf = torch.zeros((b, max_len + 1), dtype=torch.long, device=src.device)
        buf[:, 0] = bos_id
        alive = torch.ones(b, dtype=torch.bool, device=src.device)
        steps = 0
        for t in range(1, max_len + 1):
            logits = model.decode(buf[:, :t], memory)
            choice = logits[:, t - 1].argmax(-1)
            buf[:, t] = choice * alive
            alive = alive & (choice != eos_id)
            steps = t
            if not alive.any():
                break
    return buf[:, 1 : steps + 1]
