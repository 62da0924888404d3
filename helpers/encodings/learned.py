"""Learned absolute position embeddings (BERT, GPT-2): one trained vector per position.

Unlike the sinusoidal table, every row is a free parameter, so the model can shape position as
the task needs, but there is no row for a position it never saw: the table stops at ``max_len``.
"""

from __future__ import annotations

import torch
from torch import nn

from .._checks import require_int, require_positive_float
from .base import require_rows

__all__ = ["LearnedPositionalEmbedding"]

_NO_ROW = "a learned table has no row for positions it was not built with"


class LearnedPositionalEmbedding(nn.Module):
    """Adds a trained table ``weight (max_len, d_model)``: ``forward(x) = x + weight[:seq_len]``.

    ``x`` has shape ``(batch, seq_len, d_model)``. Rows start as ``N(0, init_std**2)``; the
    default ``init_std=0.02`` is BERT's and GPT-2's: small random values, all different (so
    every position is distinguishable from the first step), that barely disturb the vectors
    they are added to until training decides how much position to use.
    :class:`~helpers.encodings.TokenAndPositionalEmbedding` passes a larger ``init_std`` so that
    the table starts as large as the sinusoidal one (see its docstring).
    A sequence longer than ``max_len`` raises a ``ValueError`` naming both lengths, instead of
    the ``IndexError`` an unchecked lookup gives.
    Derived in notebook 05; compared in notebook 11.
    """

    def __init__(self, max_len: int, d_model: int, init_std: float = 0.02) -> None:
        super().__init__()
        self.max_len = require_int("max_len", max_len, minimum=1)
        self.d_model = require_int("d_model", d_model, minimum=1)
        self.init_std = require_positive_float("init_std", init_std)
        self.weight = nn.Parameter(torch.empty(self.max_len, self.d_model))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every row again from ``N(0, init_std**2)``."""
        nn.init.normal_(self.weight, mean=0.0, std=self.init_std)

    def forward(self, x: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """``x (batch, seq_len, d_model)`` -> ``x + weight[offset : offset + seq_len]``, same shape.
        ``offset`` > 0: the tokens continue a cached prefix (notebook 15)."""
        end = require_rows(x, offset, self.d_model, self.max_len, _NO_ROW)
        return x + self.weight[offset:end].to(dtype=x.dtype)  # (batch, seq_len, d_model)

    def extra_repr(self) -> str:
        return f"max_len={self.max_len}, d_model={self.d_model}, init_std={self.init_std:g}"
