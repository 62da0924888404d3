"""What the position schemes share: the hooks of a scheme inside attention
(:class:`PositionalAttention`) and the check of a position table's rows (:func:`require_rows`)."""

from __future__ import annotations

import torch
from torch import nn

from .._checks import require_int, require_tensor

__all__ = ["PositionalAttention"]  # require_rows: shared by the table modules only


class PositionalAttention(nn.Module):
    """The part of a position scheme that lives inside one multi-head attention.

    ``helpers.attention.MultiHeadAttention`` calls three hooks, each doing nothing here;
    a scheme overrides the ones it needs. Shapes are per head: ``(B, H, L, d_k)``.
    ``offset`` is the position of the first new query (> 0 when earlier keys come from a
    key/value cache, lesson 15); keys sit at positions ``0 .. L_k - 1``.

    - :meth:`rotate` turns queries and keys by their positions (rotary).
    - :meth:`score_bias` returns a term added to the scaled scores ``q k^T / sqrt(d_k)``
      (relative), ``(B, H, L_q, L_k)`` or None.
    - :meth:`value_term` returns a term added to the attention output (relative values);
      :attr:`needs_weights` says whether the module has one (it needs the weights, so the
      readable attention path runs instead of the fused kernel).

    Used by :class:`~helpers.encodings.RotaryPositionalAttention` and
    :class:`~helpers.encodings.RelativePositionalAttention` (notebook 11).
    """

    needs_weights: bool = False

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, offset: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries ``(B, H, L_q, d_k)`` and keys ``(B, H, L_k, d_k)``, position applied."""
        return q, k

    def score_bias(self, q: torch.Tensor, len_k: int, offset: int) -> torch.Tensor | None:
        """A term for the scaled scores ``(B, H, L_q, L_k)``, or None."""
        return None

    def value_term(self, weights: torch.Tensor, offset: int) -> torch.Tensor | None:
        """A term for the output ``(B, H, L_q, d_k)`` from ``weights (B, H, L_q, L_k)``."""
        return None


def require_rows(x: object, offset: object, d_model: int, max_len: int, advice: str) -> int:
    """Check ``x (batch, seq_len, d_model)`` at positions ``offset ..`` fits a table of
    ``max_len`` rows; return ``offset + seq_len``, one past the last position. ``advice`` ends
    the message of a too-long sequence."""
    require_tensor("x", x, ndim=3, floating=True)
    offset = require_int("offset", offset, minimum=0)
    seq_len = x.shape[1]
    end = offset + seq_len
    if x.shape[-1] != d_model:
        raise ValueError(
            f"x must have last dimension d_model={d_model}, got shape {tuple(x.shape)}"
        )
    if end > max_len:
        length = f"seq_len={seq_len}" if offset == 0 else f"offset + seq_len={end}"
        raise ValueError(f"{length} is longer than max_len={max_len}: {advice}")
    return end
