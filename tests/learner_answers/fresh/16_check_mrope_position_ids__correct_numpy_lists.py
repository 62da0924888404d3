"""correct: NumPy, three Python lists appended axis by axis, row-major via divmod, converted to a long tensor."""
KIND = "correct"
CHECKER = "check_mrope_position_ids"
LESSON = "16"
import numpy as np
import torch


def answer(segments):
    T, H, W = [], [], []
    start = 0
    for kind, size in segments:
        if kind == "text":
            ids = list(range(start, start + size))
            T += ids; H += ids; W += ids
            start += size
        else:
            frames, h, w = (1, *size) if kind == "image" else size
            for f in range(frames):
                for p in range(h * w):
                    r, c = divmod(p, w)
                    T.append(start + f); H.append(start + r); W.append(start + c)
            start += max(h, w)
    return torch.from_numpy(np.array([T, H, W], dtype=np.int64))
