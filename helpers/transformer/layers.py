"""The layers of the Transformer (Vaswani et al., 2017), batch first.

    FeedForward        FFN(x) = W_2 ReLU(W_1 x + b_1) + b_2, at every position separately
    EncoderLayer       self-attention, then feed-forward; each in a residual connection + LayerNorm
    DecoderLayer       masked self-attention, cross-attention to the encoder, feed-forward

Residual connections come in two flavours, written once in :meth:`_Block._residual`: post-LN,
``x = LayerNorm(x + Dropout(sublayer(x)))``, as in the paper, and pre-LN (``norm_first=True``),
``x = x + Dropout(sublayer(LayerNorm(x)))``, which then needs one final LayerNorm after the
stack (the models add it). A layer's self-attention takes a ``position`` builder (see
``helpers.attention.MultiHeadAttention``); cross-attention never gets a positional term: its
queries and keys live in different sequences.

Masks follow the course convention: boolean, True = may attend. ``forward`` checks its arguments
once; the unchecked core (``_forward``) is what the models call.
"""

from __future__ import annotations

from collections.abc import Callable

import torch
from torch import nn

from .._checks import (
    require_bool,
    require_int,
    require_probability,
    require_same_dtype,
    require_tensor,
)
from ..attention import LayerKVCache, MultiHeadAttention

__all__ = ["FeedForward", "EncoderLayer", "DecoderLayer"]


class FeedForward(nn.Module):
    """Position-wise feed-forward network (paper, equation 2), with dropout on the hidden layer.

    ``(batch, seq_len, d_model) -> (batch, seq_len, d_model)`` through a hidden width ``d_ff``;
    the same two linear maps are applied at every position, independently. Derived in
    notebook 09.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.d_model = require_int("d_model", d_model, minimum=1)
        d_ff = require_int("d_ff", d_ff, minimum=1)
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(require_probability("dropout", dropout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _require_width("x", x, self.d_model, ndim=None)
        hidden = torch.relu(self.linear1(x))  # (batch, seq_len, d_ff)
        return self.linear2(self.dropout(hidden))  # (batch, seq_len, d_model)


class _Block(nn.Module):
    """What the encoder and decoder layers share: their checked arguments and the residual."""

    def __init__(self, d_model, num_heads, d_ff, dropout, norm_first) -> None:
        super().__init__()
        _require_layer_args(d_model, num_heads, d_ff, dropout, norm_first)
        self.d_model, self.norm_first = d_model, norm_first

    def _residual(self, x, norm, dropout, sublayer):
        """Post-LN ``norm(x + dropout(sublayer(x)))`` or pre-LN ``x + dropout(sublayer(norm(x)))``.

        ``sublayer`` returns ``(output, weights)``; returns ``(x, weights)``."""
        out, weights = sublayer(norm(x) if self.norm_first else x)
        x = x + dropout(out)
        return (x if self.norm_first else norm(x)), weights

    def _feed_forward(self, h: torch.Tensor) -> tuple[torch.Tensor, None]:
        """The feed-forward sub-layer, shaped like an attention one for :meth:`_residual`."""
        return self.feed_forward(h), None


class EncoderLayer(_Block):
    """Self-attention then feed-forward, each wrapped in a residual connection and LayerNorm.

    ``forward(x (B, L, d_model), mask=None, attn_bias=None, need_weights=False)`` returns
    ``(x (B, L, d_model), weights (B, num_heads, L, L) or None)``. With a causal ``mask`` this is
    also the layer of a decoder-only model. ``position`` is passed to the self-attention (see
    ``helpers.attention.MultiHeadAttention``). Derived in notebook 09.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
        *,
        position: Callable[[int], nn.Module] | None = None,
    ) -> None:
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout, position=position)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        mask: torch.Tensor | None = None,
        attn_bias: torch.Tensor | None = None,
        need_weights: bool = False,
        cache: LayerKVCache | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        _require_width("x", x, self.d_model)
        require_same_dtype("x", x, "the layer's weights", self.norm1.weight)
        self.self_attn._require_options(x.shape, x.shape[1], mask, need_weights, attn_bias, cache)
        return self._forward(x, mask, attn_bias, need_weights, cache)

    def _forward(self, x, mask, attn_bias, need_weights, cache):
        """:meth:`forward` without the argument checks (the models call this)."""

        def self_attention(h):  # (B, L, d_model) -> (B, L, d_model), (B, H, L, L) or None
            return self.self_attn._forward(h, h, h, mask, need_weights, attn_bias, cache)

        x, weights = self._residual(x, self.norm1, self.dropout1, self_attention)
        x, _ = self._residual(x, self.norm2, self.dropout2, self._feed_forward)
        return x, weights  # (B, L, d_model), (B, H, L, L) or None


class DecoderLayer(_Block):
    """Masked self-attention, cross-attention to the encoder output, feed-forward; each in a
    residual connection with LayerNorm.

    ``forward(x (B, T, d_model), memory (B, S, d_model), self_mask=None, memory_mask=None,
    attn_bias=None, need_weights=False)`` returns ``(x (B, T, d_model), self_weights
    (B, H, T, T), cross_weights (B, H, T, S))`` (weights None unless ``need_weights``).
    ``self_mask`` should contain the causal mask; :class:`Transformer` always adds it.
    Derived in notebook 09.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
        *,
        position: Callable[[int], nn.Module] | None = None,
    ) -> None:
        super().__init__(d_model, num_heads, d_ff, dropout, norm_first)
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout, position=position)
        self.cross_attn = MultiHeadAttention(d_model, num_heads, dropout)
        self.feed_forward = FeedForward(d_model, d_ff, dropout)
        self.norm1 = nn.LayerNorm(d_model)
        self.norm2 = nn.LayerNorm(d_model)
        self.norm3 = nn.LayerNorm(d_model)
        self.dropout1 = nn.Dropout(dropout)
        self.dropout2 = nn.Dropout(dropout)
        self.dropout3 = nn.Dropout(dropout)

    def forward(
        self,
        x: torch.Tensor,
        memory: torch.Tensor,
        self_mask: torch.Tensor | None = None,
        memory_mask: torch.Tensor | None = None,
        attn_bias: torch.Tensor | None = None,
        need_weights: bool = False,
        cache: LayerKVCache | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None, torch.Tensor | None]:
        _require_width("x", x, self.d_model)
        require_same_dtype("x", x, "the layer's weights", self.norm1.weight)
        _require_width("memory", memory, self.d_model)
        require_same_dtype("memory", memory, "the layer's weights", self.norm1.weight)
        if memory.shape[0] != x.shape[0]:
            raise ValueError(
                f"memory must have the batch size of x, {x.shape[0]}, got {tuple(memory.shape)}"
            )
        attention = self.self_attn
        attention._require_options(x.shape, x.shape[1], self_mask, need_weights, attn_bias, cache)
        self.cross_attn._require_options(x.shape, memory.shape[1], memory_mask, True, None, None)
        return self._forward(x, memory, self_mask, memory_mask, attn_bias, need_weights, cache)

    def _forward(self, x, memory, self_mask, memory_mask, attn_bias, need_weights, cache):
        """:meth:`forward` without the argument checks (the models call this)."""

        def self_attention(h):  # (B, T, d_model), (B, H, T, T) or None
            return self.self_attn._forward(h, h, h, self_mask, need_weights, attn_bias, cache)

        def cross_attention(h):  # queries from the decoder, keys and values from the encoder
            return self.cross_attn._forward(
                h, memory, memory, memory_mask, need_weights, None, None
            )

        x, self_weights = self._residual(x, self.norm1, self.dropout1, self_attention)
        x, cross_weights = self._residual(x, self.norm2, self.dropout2, cross_attention)
        x, _ = self._residual(x, self.norm3, self.dropout3, self._feed_forward)
        return x, self_weights, cross_weights  # (B, T, d_model), (B, H, T, T), (B, H, T, S)


def _require_width(name: str, x: object, d_model: int, ndim: int | None = 3) -> None:
    """Raise unless ``x`` is a float tensor (of rank ``ndim``) whose last dimension is d_model."""
    require_tensor(name, x, ndim=ndim, min_ndim=1, floating=True)
    if x.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have last dimension d_model={d_model}, got shape {tuple(x.shape)}"
        )


def _require_layer_args(d_model: int, num_heads: int, d_ff: int, dropout: float, norm_first):
    require_int("d_model", d_model, minimum=1)
    require_int("num_heads", num_heads, minimum=1)
    if d_model % num_heads:
        raise ValueError(
            f"d_model must be divisible by num_heads, got d_model={d_model} and "
            f"num_heads={num_heads}"
        )
    require_int("d_ff", d_ff, minimum=1)
    require_probability("dropout", dropout)
    require_bool("norm_first", norm_first)
