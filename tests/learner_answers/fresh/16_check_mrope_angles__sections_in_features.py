"""Reads mrope_section as numbers of features (as in Qwen's code, which doubles them) and halves them, then lets the last axis fill the rest."""
KIND = "wrong"
CHECKER = "check_mrope_angles"
LESSON = "16"
import torch


def answer(position_ids, mrope_section, d_k, base):
    half = d_k // 2
    sizes = [s // 2 for s in mrope_section]
    axes = torch.repeat_interleave(torch.arange(3), torch.tensor(sizes))
    axes = torch.cat([axes, torch.full((half - len(axes),), 2)])
    k = torch.arange(half, dtype=torch.float64)
    omega = base ** (-2 * k / d_k)
    ids = position_ids.to(torch.float64)
    return ids[axes, :].T * omega
