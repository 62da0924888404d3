"""One converter from what the helpers accept (tensors, arrays, lists) to a NumPy array."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["as_numpy"]


def as_numpy(value: Any) -> np.ndarray:
    """A NumPy array of ``value``: a torch tensor (any device, with or without grad, bfloat16
    as float32, which NumPy lacks), a NumPy array or a nested list."""
    if hasattr(value, "detach"):
        value = value.detach().cpu()
        if str(value.dtype) == "torch.bfloat16":
            value = value.float()
        value = value.numpy()
    return np.asarray(value)
