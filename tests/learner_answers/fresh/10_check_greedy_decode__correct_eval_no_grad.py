"""correct: eval mode and no_grad (mode restored), prefix grown with torch.where, stops when all rows are done."""
KIND = "correct"
CHECKER = "check_greedy_decode"
LESSON = "10"
import torch

def answer(model, src, max_len, bos_id, eos_id):
    was_training = model.training
    model.eval()
    try:
        with torch.no_grad():
            memory = model.encode(src)
            batch = src.size(0)
            prefix = torch.full((batch, 1), bos_id, dtype=torch.long, device=src.device)
            finished = torch.zeros(batch, dtype=torch.bool, device=src.device)
            for _ in range(max_len):
                logits = model.decode(prefix, memory)
                token = logits[:, -1, :].argmax(dim=-1)
                token = torch.where(finished, torch.zeros_like(token), token)
                prefix = torch.cat([prefix, token.unsqueeze(-1)], dim=-1)
                finished = finished | (token == eos_id)
                if bool(finished.all()):
                    break
    finally:
        model.train(was_training)
    return prefix[:, 1:]
