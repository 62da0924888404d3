"""Cycles the pairs time, height, width (Qwen3-VL's interleaved layout) instead of contiguous sections."""
KIND = "wrong"
CHECKER = "check_mrope_angles"
LESSON = "16"
import torch


def answer(position_ids, mrope_section, d_k, base):
    half = d_k // 2
    axes = torch.arange(half) % 3
    k = torch.arange(half, dtype=torch.float64)
    omega = base ** (-2 * k / d_k)
    ids = position_ids.to(torch.float64)
    return ids[axes].T * omega
