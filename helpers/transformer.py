"""The Transformer of Vaswani et al. (2017), assembled from the course's parts, batch first.

Pieces, bottom up::

    FeedForward        FFN(x) = W_2 ReLU(W_1 x + b_1) + b_2, at every position separately
    EncoderLayer       self-attention, then feed-forward; each in a residual connection + LayerNorm
    DecoderLayer       masked self-attention, cross-attention to the encoder, feed-forward
    TransformerConfig  the sizes and options of a model, checked once
    Transformer        embeddings + position, N encoder layers, N decoder layers, output projection
    DecoderOnlyTransformer   a causal language model: embeddings + N causal layers + projection

Residual connections come in two flavours, written once in :meth:`_Block._residual`: post-LN,
``x = LayerNorm(x + Dropout(sublayer(x)))``, as in the paper, and pre-LN (``norm_first=True``),
``x = x + Dropout(sublayer(LayerNorm(x)))``, which then needs one final LayerNorm after the
stack (as ``torch.nn.Transformer`` does).

Position (argument ``positional``): the models look the scheme up in
``helpers.encodings.POSITION_SCHEMES``, whose entry says where it enters: the embeddings
(``TokenAndPositionalEmbedding``), every self-attention (a position module given to
``MultiHeadAttention``), or an additive score bias. No code here branches on a scheme's name.
Cross-attention never gets a positional term: its queries and keys live in different sequences.

Masks follow the course convention: boolean, True = may attend. Each public method checks its
arguments once; the layers' and attention's unchecked cores (``_forward``) run below it.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from ._checks import (
    fits_into,
    require_bool,
    require_choice,
    require_ids,
    require_int,
    require_probability,
    require_same_dtype,
    require_tensor,
)
from .attention import KVCache, LayerKVCache, MultiHeadAttention, causal_mask, to_ignore_mask
from .encodings import (
    POSITION_SCHEMES,
    PositionScheme,
    RotaryPositionalAttention,
    TokenAndPositionalEmbedding,
    require_scheme,
    scaled_rotary_frequencies,
)

__all__ = [
    "TransformerConfig",
    "FeedForward",
    "EncoderLayer",
    "DecoderLayer",
    "Transformer",
    "DecoderOnlyTransformer",
    "TorchReferenceTransformer",
    "greedy_decode",
    "generate",
    "set_rotary_scaling",
    "count_parameters",
]


# --------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------


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


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TransformerConfig:
    """The sizes and options of a :class:`Transformer` or :class:`DecoderOnlyTransformer`,
    checked once when made (a bad value raises here, naming the argument).

    ``positional``: a name in ``helpers.encodings.POSITION_SCHEMES``; ``relative_max_distance``:
    the clipping distance of ``"relative"``; ``tie_embeddings``: share the embedding matrices
    with the output projection (paper, section 3.4). Used in notebooks 10, 12 and 15.
    """

    d_model: int = 64
    num_heads: int = 4
    num_layers: int = 2
    d_ff: int = 256
    dropout: float = 0.1
    max_len: int = 512
    positional: str = "sinusoidal"
    norm_first: bool = False
    relative_max_distance: int = 16
    tie_embeddings: bool = False

    def __post_init__(self) -> None:
        _require_layer_args(self.d_model, self.num_heads, self.d_ff, self.dropout, False)
        require_int("num_layers", self.num_layers, minimum=1)
        require_int("max_len", self.max_len, minimum=1)
        require_scheme(self.positional, self.d_model, self.num_heads)
        require_bool("norm_first", self.norm_first)
        require_int("relative_max_distance", self.relative_max_distance, minimum=1)
        require_bool("tie_embeddings", self.tie_embeddings)

    @property
    def scheme(self) -> PositionScheme:
        """The registry entry of ``positional``."""
        return require_scheme(self.positional, self.d_model, self.num_heads)

    def layer_args(self) -> dict:
        """What every layer of the model is built with, its self-attention's position included."""
        build = self.scheme.attention  # None: position does not enter the attention
        position = None if build is None else lambda d_k: build(d_k, self)
        return {
            "d_model": self.d_model,
            "num_heads": self.num_heads,
            "d_ff": self.d_ff,
            "dropout": self.dropout,
            "norm_first": self.norm_first,
            "position": position,
        }


class _Model(nn.Module):
    """What both models share: the configuration, the embeddings, the layers, the output."""

    def _setup(self, config: TransformerConfig) -> None:
        self.config = config
        self.d_model, self.num_heads, self.num_layers = (
            config.d_model,
            config.num_heads,
            config.num_layers,
        )
        self.positional, self.norm_first = config.positional, config.norm_first
        self.scheme = config.scheme

    def _embedding(self, vocab_size: int) -> TokenAndPositionalEmbedding:
        c = self.config
        return TokenAndPositionalEmbedding(
            vocab_size, c.d_model, c.max_len, c.positional, c.dropout
        )

    def _stack(self, layer: type[_Block]) -> nn.ModuleList:
        return nn.ModuleList(layer(**self.config.layer_args()) for _ in range(self.num_layers))

    def _final_norm(self) -> nn.Module:
        """Pre-LN leaves the residual stream un-normalised: one LayerNorm closes each stack."""
        return nn.LayerNorm(self.d_model) if self.norm_first else nn.Identity()

    def _output(self, vocab_size: int, embedding: TokenAndPositionalEmbedding) -> nn.Linear:
        """The projection to the vocabulary, its weight tied to ``embedding`` if configured."""
        projection = nn.Linear(self.d_model, vocab_size)
        if self.config.tie_embeddings:  # paper 3.4: logits = x E^T (+ a bias)
            projection.weight = embedding.token_embedding.weight
        return projection

    def _self_attention(self, seq_len: int, x: torch.Tensor, mask, offset: int):
        """The causal self-attention mask and the scheme's score bias for ``seq_len`` new tokens
        after ``offset`` cached ones: rows ``offset ..`` of the full causal mask and bias,
        ``(seq_len, total)`` and ``(num_heads, seq_len, total)``; ``mask`` is combined in."""
        total = offset + seq_len
        self_mask = causal_mask(total, device=x.device)[offset:]  # (L, total): no future keys
        if offset:  # 4-D, so that a (L, total) mask is never read as (batch, keys) key padding
            self_mask = self_mask[None, None]  # (1, 1, L, total)
        if mask is not None:
            self_mask = self_mask & mask  # (B, 1, L, total)
        return self_mask, self._attn_bias(seq_len, total, x)

    def _attn_bias(self, len_q: int, len_k: int, x: torch.Tensor) -> torch.Tensor | None:
        """The scheme's additive score bias for the last ``len_q`` of ``len_k`` positions."""
        build = self.scheme.attn_bias
        return None if build is None else build(self.num_heads, len_q, len_k, x)


def _xavier_init(modules: list[nn.Module]) -> None:
    """Xavier-uniform weight matrices, as the Annotated Transformer and torch.nn.Transformer."""
    for module in modules:
        for parameter in module.parameters():
            if parameter.dim() > 1:
                nn.init.xavier_uniform_(parameter)


class Transformer(_Model):
    """Encoder-decoder Transformer (Vaswani et al., 2017), batch first.

    ``forward(src (B, S), tgt (B, T), src_mask=None, tgt_mask=None)`` returns logits
    ``(B, T, tgt_vocab_size)``: ``logits[:, t]`` scores the token that follows ``tgt[:, :t+1]``.

    - ``src_mask``: boolean, broadcastable to ``(B, 1, 1, S)`` (e.g.
      ``helpers.attention.padding_mask(src, pad_id)``); used by the encoder's self-attention and
      by the decoder's cross-attention.
    - ``tgt_mask``: boolean, broadcastable to ``(B, 1, T, T)``; the decoder always combines it
      with the causal mask, so leaving it out can never leak the future.

    ``encode`` and ``decode`` run the two halves separately (for greedy decoding); with
    ``need_weights=True`` they also return every layer's attention weights.
    ``norm_first=True`` gives pre-LN layers and a final LayerNorm after each stack.
    ``tie_embeddings=True`` (paper, section 3.4) shares one matrix between the source and
    target embeddings (the vocabularies must agree) and the output projection.
    The arguments after the vocabularies make a :class:`TransformerConfig` (``self.config``).
    Trained in notebook 10.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        d_model: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        d_ff: int = 256,
        dropout: float = 0.1,
        max_len: int = 512,
        positional: str = "sinusoidal",
        norm_first: bool = False,
        *,
        relative_max_distance: int = 16,
        tie_embeddings: bool = False,
    ) -> None:
        super().__init__()
        require_int("src_vocab_size", src_vocab_size, minimum=1)
        require_int("tgt_vocab_size", tgt_vocab_size, minimum=1)
        config = TransformerConfig(
            d_model, num_heads, num_layers, d_ff, dropout, max_len, positional, norm_first,
            relative_max_distance, tie_embeddings,
        )  # fmt: skip
        if tie_embeddings and src_vocab_size != tgt_vocab_size:
            raise ValueError(
                f"tie_embeddings=True shares one embedding matrix, so src_vocab_size and "
                f"tgt_vocab_size must agree, got {src_vocab_size} and {tgt_vocab_size}"
            )
        self._setup(config)
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size
        self.src_embedding = self._embedding(src_vocab_size)
        self.tgt_embedding = self._embedding(tgt_vocab_size)
        if tie_embeddings:  # one matrix for source and target tokens
            self.tgt_embedding.token_embedding.weight = self.src_embedding.token_embedding.weight
        self.encoder_layers = self._stack(EncoderLayer)
        self.decoder_layers = self._stack(DecoderLayer)
        self.encoder_norm = self._final_norm()
        self.decoder_norm = self._final_norm()
        self.output_projection = self._output(tgt_vocab_size, self.tgt_embedding)
        _xavier_init([self.encoder_layers, self.decoder_layers])
        if not tie_embeddings:  # a tied projection keeps the embedding's initialisation
            _xavier_init([self.output_projection])

    def encode(
        self,
        src: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        need_weights: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """``src (B, S)`` -> ``memory (B, S, d_model)`` [and a list of ``(B, H, S, S)``]."""
        require_tensor("src", src, ndim=2, integer=True)
        require_ids("src", src, self.src_embedding.vocab_size)
        batch, src_len = src.shape
        _require_mask("src_mask", src_mask, (batch, 1, 1, src_len))
        require_bool("need_weights", need_weights)
        x = self.src_embedding._forward(src, 0)  # (B, S, d_model)
        bias = self._attn_bias(src_len, src_len, x)  # e.g. ALiBi's (H, S, S), or None
        weights = []
        for layer in self.encoder_layers:
            x, w = layer._forward(x, src_mask, bias, need_weights, None)
            weights.append(w)
        memory = self.encoder_norm(x)
        return (memory, weights) if need_weights else memory

    def decode(
        self,
        tgt: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
        need_weights: bool = False,
        cache: KVCache | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor], list[torch.Tensor]]:
        """``tgt (B, T)`` and ``memory (B, S, d_model)`` -> logits ``(B, T, tgt_vocab_size)``
        [and lists of self-attention ``(B, H, T, T)`` and cross-attention ``(B, H, T, S)``].

        With a ``cache`` (:class:`~helpers.attention.KVCache`), ``tgt`` holds only the new
        tokens, at positions ``cache.length ..``; ``tgt_mask`` then covers every key so far:
        ``(B, 1, T, cache.length + T)``. Incremental decoding, notebook 15.
        """
        require_tensor("tgt", tgt, ndim=2, integer=True)
        require_ids("tgt", tgt, self.tgt_embedding.vocab_size)
        batch, tgt_len = tgt.shape
        offset = _require_cache(cache, self.num_layers)
        _require_memory(memory, batch, self.d_model)
        _require_mask("src_mask", src_mask, (batch, 1, 1, memory.shape[1]))
        _require_mask("tgt_mask", tgt_mask, (batch, 1, tgt_len, offset + tgt_len))
        require_bool("need_weights", need_weights)
        require_same_dtype("memory", memory, "the model's weights", self.output_projection.weight)
        x = self.tgt_embedding._forward(tgt, offset)  # (B, T, d_model), at positions offset ..
        self_mask, bias = self._self_attention(tgt_len, x, tgt_mask, offset)
        caches = [None] * len(self.decoder_layers) if cache is None else cache.layers
        self_weights, cross_weights = [], []
        for layer, layer_cache in zip(self.decoder_layers, caches, strict=True):
            x, w_self, w_cross = layer._forward(
                x, memory, self_mask, src_mask, bias, need_weights, layer_cache
            )
            self_weights.append(w_self)
            cross_weights.append(w_cross)
        logits = self.output_projection(self.decoder_norm(x))  # (B, T, tgt_vocab_size)
        return (logits, self_weights, cross_weights) if need_weights else logits

    def forward(
        self,
        src: torch.Tensor,
        tgt: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Teacher forcing: logits ``(B, T, tgt_vocab_size)`` for every target position."""
        _require_same_batch(src, tgt)
        memory = self.encode(src, src_mask)  # (B, S, d_model)
        return self.decode(tgt, memory, src_mask, tgt_mask)


class DecoderOnlyTransformer(_Model):
    """A causal language model from the same blocks: embeddings + position, ``num_layers``
    self-attention layers under a causal mask, and a projection to the vocabulary.

    ``forward(tokens (B, L), mask=None, need_weights=False)`` returns logits
    ``(B, L, vocab_size)``; ``logits[:, t]`` depends only on ``tokens[:, :t+1]``. ``mask``
    (boolean, broadcastable to ``(B, 1, L, L)``, e.g. a padding mask) is combined with the
    causal mask. With ``need_weights=True`` it returns ``(logits, [weights (B, H, L, L)])``.
    With a ``cache`` (:class:`~helpers.attention.KVCache`) ``tokens`` are only the new ones, at
    positions ``cache.length ..`` (see :func:`generate`, notebook 15). ``tie_embeddings=True``
    ties the output projection's weight to the token embedding (paper, section 3.4).
    The arguments after ``vocab_size`` make a :class:`TransformerConfig` (``self.config``).
    Trained in notebooks 12 and 15.
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        d_ff: int = 256,
        dropout: float = 0.0,
        max_len: int = 512,
        positional: str = "sinusoidal",
        *,
        norm_first: bool = False,
        relative_max_distance: int = 16,
        tie_embeddings: bool = False,
    ) -> None:
        super().__init__()  # vocab_size: checked by TokenAndPositionalEmbedding
        self._setup(
            TransformerConfig(
                d_model,
                num_heads,
                num_layers,
                d_ff,
                dropout,
                max_len,
                positional,
                norm_first,
                relative_max_distance,
                tie_embeddings,
            )  # fmt: skip
        )
        self.embedding = self._embedding(vocab_size)
        self.layers = self._stack(EncoderLayer)
        self.final_norm = self._final_norm()
        self.output_projection = self._output(vocab_size, self.embedding)
        _xavier_init([self.layers])
        if not tie_embeddings:  # a tied projection keeps the embedding's initialisation
            _xavier_init([self.output_projection])

    def forward(
        self,
        tokens: torch.Tensor,
        mask: torch.Tensor | None = None,
        need_weights: bool = False,
        cache: KVCache | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        require_tensor("tokens", tokens, ndim=2, integer=True)
        require_ids("tokens", tokens, self.embedding.vocab_size)
        batch, seq_len = tokens.shape
        offset = _require_cache(cache, self.num_layers)
        _require_mask("mask", mask, (batch, 1, seq_len, offset + seq_len))
        require_bool("need_weights", need_weights)
        x = self.embedding._forward(tokens, offset)  # (B, L, d_model), at positions offset ..
        self_mask, bias = self._self_attention(seq_len, x, mask, offset)
        caches = [None] * len(self.layers) if cache is None else cache.layers
        weights = []
        for layer, layer_cache in zip(self.layers, caches, strict=True):
            x, w = layer._forward(x, self_mask, bias, need_weights, layer_cache)
            weights.append(w)
        logits = self.output_projection(self.final_norm(x))  # (B, L, vocab_size)
        return (logits, weights) if need_weights else logits


# --------------------------------------------------------------------------------------------
# Argument checks, made once where an argument enters
# --------------------------------------------------------------------------------------------


def _require_width(name: str, x: object, d_model: int, ndim: int | None = 3) -> None:
    """Raise unless ``x`` is a float tensor (of rank ``ndim``) whose last dimension is d_model."""
    require_tensor(name, x, ndim=ndim, min_ndim=1, floating=True)
    if x.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have last dimension d_model={d_model}, got shape {tuple(x.shape)}"
        )


def _require_same_batch(src: object, tgt: object) -> None:
    # the dtypes: checked by encode and decode, which both models call next
    require_tensor("src", src, ndim=2)
    require_tensor("tgt", tgt, ndim=2)
    if src.shape[0] != tgt.shape[0]:
        raise ValueError(
            f"src and tgt must have the same batch size, got src {tuple(src.shape)} and "
            f"tgt {tuple(tgt.shape)}"
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


def _require_cache(cache: object, num_layers: int) -> int:
    """Return the cached length (0 without a cache) after checking the cache fits the model."""
    if cache is None:
        return 0
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache or None, got {type(cache).__name__}")
    if len(cache.layers) != num_layers:
        raise ValueError(
            f"cache must have one slot per layer ({num_layers}), got {len(cache.layers)}"
        )
    return cache.length


def _require_mask(name: str, mask: torch.Tensor | None, shape: tuple[int, ...]) -> None:
    """Raise unless ``mask`` is None or a boolean tensor broadcastable to ``shape``."""
    if mask is None:
        return
    require_tensor(name, mask, boolean=True)
    if not fits_into(tuple(mask.shape), tuple(shape)):
        raise ValueError(
            f"{name} of shape {tuple(mask.shape)} must broadcast to {shape} "
            f"(batch, 1, queries, keys)"
        )


def _require_memory(memory: object, batch: int, d_model: int) -> None:
    """Raise unless ``memory`` is a float tensor of shape ``(batch, src_len, d_model)``."""
    require_tensor("memory", memory, ndim=3, floating=True)
    if memory.shape[0] != batch or memory.shape[2] != d_model:
        raise ValueError(
            f"memory must have shape (batch={batch}, src_len, d_model={d_model}), "
            f"got {tuple(memory.shape)}"
        )


def set_rotary_scaling(
    model: nn.Module,
    method: str | None,
    factor: float = 1.0,
    original_max_len: int | None = None,
    **options: float,
) -> tuple[torch.Tensor, float] | None:
    """Stretch the rotary embeddings of every self-attention in ``model`` (built with
    ``positional="rotary"``) for a context ``factor`` times the training length: ``method`` is
    ``"linear"``, ``"ntk"`` or ``"yarn"`` (see :func:`~helpers.encodings.scaled_rotary_frequencies`,
    whose ``beta_fast``/``beta_slow`` pass through ``options``); ``None`` restores plain rotary.
    Works on a trained model, with or without fine-tuning after. Returns ``(omega,
    attention_scale)``, or None. Derived in notebook 15.
    """
    rotary = [m for m in model.modules() if isinstance(m, RotaryPositionalAttention)]
    if not rotary:
        raise ValueError(
            f"model has no rotary self-attention (build it with positional='rotary'), got "
            f"{type(model).__name__}"
        )
    if method is None:
        for module in rotary:
            module.set_frequencies(None)
        return None
    first = rotary[0]
    omega, scale = scaled_rotary_frequencies(
        first.d_k, method, factor, first.base, original_max_len, **options
    )
    for module in rotary:
        module.set_frequencies(omega, scale)
    return omega, scale


_ABSOLUTE_SCHEMES = tuple(
    name for name, scheme in POSITION_SCHEMES.items() if scheme.enters in ("embedding", "nowhere")
)


class TorchReferenceTransformer(_Model):
    """``torch.nn.Transformer`` with the same embeddings, output projection, masks (course
    convention) and ``encode``/``decode`` interface as :class:`Transformer`: a reference to
    compare accuracy and speed with.

    The configuration is identical to :class:`Transformer` with the same arguments, including
    the final LayerNorms (present only with ``norm_first=True``; ``torch.nn.Transformer`` would
    add them to post-LN stacks too). Only the absolute schemes "sinusoidal", "learned" and
    "none" are available, since PyTorch's attention has no rotary or relative terms.
    Compared with :class:`Transformer` in notebook 10.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        d_model: int = 64,
        num_heads: int = 4,
        num_layers: int = 2,
        d_ff: int = 256,
        dropout: float = 0.1,
        max_len: int = 512,
        positional: str = "sinusoidal",
        norm_first: bool = False,
    ) -> None:
        super().__init__()
        require_int("src_vocab_size", src_vocab_size, minimum=1)
        require_int("tgt_vocab_size", tgt_vocab_size, minimum=1)
        config = TransformerConfig(
            d_model, num_heads, num_layers, d_ff, dropout, max_len, positional, norm_first
        )
        # PyTorch's attention takes no position module or score bias: only what the embeddings add
        require_choice("positional", positional, _ABSOLUTE_SCHEMES)
        self._setup(config)
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size
        self.src_embedding = self._embedding(src_vocab_size)
        self.tgt_embedding = self._embedding(tgt_vocab_size)
        layer_args = {
            "d_model": d_model,
            "nhead": num_heads,
            "dim_feedforward": d_ff,
            "dropout": dropout,
            "batch_first": True,
            "norm_first": norm_first,
        }
        encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(**layer_args),
            num_layers,
            norm=nn.LayerNorm(d_model) if norm_first else None,
            enable_nested_tensor=False,  # the nested-tensor fast path warns with pre-LN
        )
        decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(**layer_args),
            num_layers,
            norm=nn.LayerNorm(d_model) if norm_first else None,
        )
        self.transformer = nn.Transformer(
            d_model, num_heads, custom_encoder=encoder, custom_decoder=decoder, batch_first=True
        )
        self.output_projection = nn.Linear(d_model, tgt_vocab_size)
        _xavier_init([self.transformer, self.output_projection])

    @staticmethod
    def _key_padding(mask: torch.Tensor | None, batch: int, length: int) -> torch.Tensor | None:
        """A course mask ``(B, 1, 1, L)`` -> PyTorch's ``key_padding_mask (B, L)``, True = ignore."""
        if mask is None:
            return None
        return to_ignore_mask(mask.expand(batch, 1, 1, length)[:, 0, 0, :])

    def encode(self, src: torch.Tensor, src_mask: torch.Tensor | None = None) -> torch.Tensor:
        """``src (B, S)`` -> ``memory (B, S, d_model)``."""
        require_tensor("src", src, ndim=2, integer=True)
        require_ids("src", src, self.src_embedding.vocab_size)
        batch, src_len = src.shape
        _require_mask("src_mask", src_mask, (batch, 1, 1, src_len))
        x = self.src_embedding(src)
        padding = self._key_padding(src_mask, batch, src_len)
        return self.transformer.encoder(x, src_key_padding_mask=padding)

    def decode(
        self,
        tgt: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """``tgt (B, T)``, ``memory (B, S, d_model)`` -> logits ``(B, T, tgt_vocab_size)``.

        ``tgt_mask`` may be a key-padding mask ``(B, 1, 1, T)`` or a full ``(B, 1, T, T)`` mask.
        """
        require_tensor("tgt", tgt, ndim=2, integer=True)
        require_ids("tgt", tgt, self.tgt_embedding.vocab_size)
        batch, tgt_len = tgt.shape
        _require_memory(memory, batch, self.d_model)
        src_len = memory.shape[1]
        _require_mask("src_mask", src_mask, (batch, 1, 1, src_len))
        _require_mask("tgt_mask", tgt_mask, (batch, 1, tgt_len, tgt_len))
        causal = causal_mask(tgt_len, device=tgt.device)  # (T, T)
        tgt_padding = None
        if tgt_mask is None:
            attn_mask = to_ignore_mask(causal)
        elif tgt_mask.shape[-2] == 1:  # a key-padding mask: PyTorch's cheaper form
            attn_mask = to_ignore_mask(causal)
            tgt_padding = self._key_padding(tgt_mask, batch, tgt_len)
        else:  # a general mask: one (T, T) mask per batch row and head
            full = (causal & tgt_mask).expand(batch, self.num_heads, tgt_len, tgt_len)
            attn_mask = to_ignore_mask(full.reshape(batch * self.num_heads, tgt_len, tgt_len))
        x = self.transformer.decoder(
            self.tgt_embedding(tgt),
            memory,
            tgt_mask=attn_mask,
            tgt_key_padding_mask=tgt_padding,
            memory_key_padding_mask=self._key_padding(src_mask, batch, src_len),
        )
        return self.output_projection(x)

    def forward(
        self,
        src: torch.Tensor,
        tgt: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        _require_same_batch(src, tgt)
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)


@torch.no_grad()
def greedy_decode(
    model: nn.Module,
    src: torch.Tensor,
    max_len: int,
    bos_id: int,
    eos_id: int | None = None,
    src_mask: torch.Tensor | None = None,
    pad_id: int = 0,
    use_cache: bool = False,
) -> torch.Tensor:
    """Generate with the most likely token at every step, a whole batch at once.

    The decoder starts from ``bos_id`` (the token it was trained to start from, never the pad),
    appends its most likely next token, and repeats ``max_len`` times or until every row has
    produced ``eos_id``. Returns the generated ids ``(batch, <= max_len)`` without the BOS;
    EOS is kept where it was produced, and the positions after it are ``pad_id``.
    ``model`` needs ``encode(src, src_mask)`` and ``decode(tgt, memory, src_mask)`` returning
    logits, as :class:`Transformer` has. The model runs in eval mode (its mode is restored).
    ``use_cache=True`` feeds the decoder only the newest token and keeps the keys and values of
    the earlier ones in a :class:`~helpers.attention.KVCache` (the model's ``decode`` must take
    ``cache=``): the same tokens, without re-running the whole prefix at every step
    (notebook 15).
    """
    if not (isinstance(model, nn.Module) and hasattr(model, "encode") and hasattr(model, "decode")):
        raise TypeError(
            f"model must be an nn.Module with encode and decode methods (such as Transformer), "
            f"got {type(model).__name__}"
        )
    require_tensor("src", src, ndim=2, integer=True)
    if src.numel() == 0:
        raise ValueError(
            f"src must hold at least one sequence of one token, got shape {tuple(src.shape)}"
        )
    max_len = require_int("max_len", max_len, minimum=1)
    vocab = getattr(model, "tgt_vocab_size", None)  # None: a model that does not say
    for name, value in (("bos_id", bos_id), ("eos_id", eos_id), ("pad_id", pad_id)):
        if value is None:  # only eos_id may be None
            continue
        require_int(name, value, minimum=0)
        if vocab is not None and value >= vocab:
            raise ValueError(f"{name} must be < the model's tgt_vocab_size={vocab}, got {value}")
    cache = _new_cache(model, use_cache, "decode")
    was_training = model.training
    model.eval()
    try:
        memory = model.encode(src, src_mask)  # (B, S, d_model): computed once
        ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
        finished = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
        for _ in range(max_len):
            if cache is None:  # (B, t, vocab): the whole prefix again
                logits = model.decode(ys, memory, src_mask)
            else:  # (B, 1, vocab): the newest token, the others from the cache
                logits = model.decode(ys[:, -1:], memory, src_mask, cache=cache)
            next_token = logits[:, -1].argmax(dim=-1)  # (B,)
            next_token = next_token.masked_fill(finished, pad_id)
            ys = torch.cat([ys, next_token[:, None]], dim=1)
            if eos_id is not None:
                finished |= next_token == eos_id
                if finished.all():
                    break
    finally:
        model.train(was_training)
    return ys[:, 1:]  # (B, <= max_len): drop the BOS


def _new_cache(model: nn.Module, use_cache: object, method: str) -> KVCache | None:
    """A fresh :class:`KVCache` for ``model`` if ``use_cache``; checks the model can use one."""
    require_bool("use_cache", use_cache)
    if not use_cache:
        return None
    if "cache" not in inspect.signature(getattr(model, method)).parameters:
        raise ValueError(
            f"use_cache=True needs a model whose {method} takes cache= (Transformer, "
            f"DecoderOnlyTransformer), got {type(model).__name__}"
        )
    return KVCache(model.num_layers)


@torch.no_grad()
def generate(
    model: nn.Module, prompt: torch.Tensor, max_new_tokens: int, use_cache: bool = True
) -> torch.Tensor:
    """Greedy generation with a causal language model such as :class:`DecoderOnlyTransformer`.

    ``prompt (B, P)`` token ids; appends the most likely next token ``max_new_tokens`` times and
    returns ``(B, P + max_new_tokens)``. With ``use_cache`` the prompt runs once and every later
    step feeds only the newest token at its true position ``P, P + 1, ...``, reusing the cached
    keys and values; without, every step re-runs the whole sequence. Same tokens either way
    (notebook 15). The model runs in eval mode (its mode is restored).
    """
    if (
        not isinstance(model, nn.Module)
        or hasattr(model, "encode")
        or not hasattr(model, "num_layers")
    ):
        raise TypeError(
            f"model must be a causal language model such as DecoderOnlyTransformer (for an "
            f"encoder-decoder Transformer use greedy_decode), got {type(model).__name__}"
        )
    require_tensor("prompt", prompt, ndim=2, integer=True)
    if prompt.shape[1] == 0:
        raise ValueError(f"prompt must hold at least one token, got shape {tuple(prompt.shape)}")
    max_new_tokens = require_int("max_new_tokens", max_new_tokens, minimum=1)
    cache = _new_cache(model, use_cache, "forward")
    was_training = model.training
    model.eval()
    try:
        tokens, new = prompt, prompt  # new: what the model has not seen yet
        for _ in range(max_new_tokens):
            logits = model(new, cache=cache) if cache is not None else model(tokens)
            next_token = logits[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
            tokens = torch.cat([tokens, next_token], dim=1)  # (B, t + 1)
            new = next_token
    finally:
        model.train(was_training)
    return tokens


def count_parameters(module: nn.Module) -> int:
    """Number of trainable parameters (buffers such as the sinusoidal table excluded).

    Used in notebooks 09, 10, 11 and 12.
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
