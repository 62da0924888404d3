"""correct: NumPy, builds the (L, d_k/2) ids by choosing each pair's axis from np.cumsum of the sections, then multiplies by omega."""
KIND = "correct"
CHECKER = "check_mrope_angles"
LESSON = "16"
import numpy as np
import torch


def answer(position_ids, mrope_section, d_k, base):
    ids = np.asarray(position_ids, dtype=np.float64)  # (3, L)
    bounds = np.cumsum(mrope_section)
    k = np.arange(d_k // 2)
    axis = np.searchsorted(bounds, k, side="right")
    omega = np.power(float(base), -2.0 * k / d_k)
    return torch.from_numpy(ids[axis, :].T * omega)
