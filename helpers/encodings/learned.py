"""Learned absolute position embeddings (BERT, GPT-2): one trained vector per position.

Unlike the sinusoidal table, every row is a free parameter, so the model can shape position as
the task needs, but there is no row for a position it never saw: the table stops at ``max_len``.
"""

from __future__ import annotations

import torch
from torch import nn

from .._checks import check_int, check_positive_float, check_tensor

__all__ = ["LearnedPositionalEmbedding"]


class LearnedPositionalEmbedding(nn.Module):
    """Adds a trained table ``weight (max_len, d_model)``: ``forward(x) = x + weight[:seq_len]``.

    ``x`` has shape ``(batch, seq_len, d_model)``. Rows start as ``N(0, init_std**2)``; the
    default ``init_std=0.02`` is BERT's and GPT-2's: small random values, all different (so
    every position is distinguishable from the first step), that barely disturb the vectors
    they are added to until training decides how much position to use.
    :class:`~helpers.encodings.TokenAndPositionEmbedding` passes a larger ``init_std`` so that
    the table starts as large as the sinusoidal one (see its docstring).
    A sequence longer than ``max_len`` raises a ``ValueError`` naming both lengths, instead of
    the ``IndexError`` an unchecked lookup gives.
    """

    def __init__(self, max_len: int, d_model: int, init_std: float = 0.02) -> None:
        super().__init__()
        self.max_len = check_int("max_len", max_len, minimum=1)
        self.d_model = check_int("d_model", d_model, minimum=1)
        self.init_std = check_positive_float("init_std", init_std)
        self.weight = nn.Parameter(torch.empty(self.max_len, self.d_model))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every row again from ``N(0, init_std**2)``."""
        nn.init.normal_(self.weight, mean=0.0, std=self.init_std)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """``x (batch, seq_len, d_model)`` -> ``x + weight[offset : offset + seq_len]``, same shape.
        ``offset`` > 0: the tokens continue a cached prefix (notebook 15)."""
        check_tensor("x", x, ndim=3, floating=True)
        offset = check_int("offset", offset, minimum=0)
        seq_len = x.shape[1]
        end = offset + seq_len  # one past the last position
        if x.shape[-1] != self.d_model:
            raise ValueError(
                f"x must have last dimension d_model={self.d_model}, got shape {tuple(x.shape)}"
            )
        if end > self.max_len:
            length = f"seq_len={seq_len}" if offset == 0 else f"offset + seq_len={end}"
            raise ValueError(
                f"{length} is longer than max_len={self.max_len}: a learned table has "
                f"no row for positions it was not built with"
            )
        return x + self.weight[offset:end].to(dtype=x.dtype)  # (batch, seq_len, d_model)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}, init_std={self.init_std:g}"
