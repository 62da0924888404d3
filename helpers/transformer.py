"""The Transformer of Vaswani et al. (2017), assembled from the course's parts, batch first.

Pieces, bottom up::

    FeedForward        FFN(x) = W_2 ReLU(W_1 x + b_1) + b_2, at every position separately
    EncoderLayer       self-attention, then feed-forward; each in a residual connection + LayerNorm
    DecoderLayer       masked self-attention, cross-attention to the encoder, feed-forward
    Transformer        embeddings + position, N encoder layers, N decoder layers, output projection
    DecoderOnlyTransformer   a causal language model: embeddings + N causal layers + projection

Residual connections come in two flavours: post-LN, ``x = LayerNorm(x + Dropout(sublayer(x)))``,
as in the paper, and pre-LN (``norm_first=True``), ``x = x + Dropout(sublayer(LayerNorm(x)))``,
which then needs one final LayerNorm after the stack (as ``torch.nn.Transformer`` does).

Position (argument ``positional``) enters in one of two places: "sinusoidal" and "learned" add a
vector to the token embedding (``helpers.encodings.TokenAndPositionEmbedding``); "rope",
"alibi" and "relative" act inside self-attention (see :func:`_self_attention_options` and
:func:`_self_attention_bias`, the only two places that know about them); "none" uses no position.
Cross-attention never gets a positional term: its queries and keys live in different sequences.

Masks follow the course convention: boolean, True = may attend.
"""

from __future__ import annotations

import inspect

import torch
from torch import nn

from ._checks import (
    check_choice,
    check_ids,
    check_int,
    check_probability,
    check_same_dtype,
    check_tensor,
)
from .attention import KVCache, LayerKVCache, MultiHeadAttention, causal_mask, to_ignore_mask
from .encodings import (
    POSITIONAL_KINDS,
    TokenAndPositionEmbedding,
    alibi_bias,
    scaled_rotary_frequencies,
)

__all__ = [
    "POSITIONAL_KINDS",
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
# Where position enters attention: the only two functions that know the positional schemes.
# --------------------------------------------------------------------------------------------


def _self_attention_options(positional: str, relative_max_distance: int) -> dict:
    """Keyword arguments for the self-attention ``MultiHeadAttention`` of a model.

    "rope" rotates queries and keys after their projection; "relative" gives attention learned
    vectors for the clipped offsets ``j - i`` (Shaw et al., 2018). Other schemes need nothing.
    """
    if positional == "rope":
        return {"rotary": True}
    if positional == "relative":
        return {"relative_max_distance": relative_max_distance}
    return {}


def _self_attention_bias(
    positional: str, seq_len: int, num_heads: int, like: torch.Tensor
) -> torch.Tensor | None:
    """ALiBi's additive bias ``-m_h |i - j|`` of shape ``(num_heads, seq_len, seq_len)``, or None.

    In a causal self-attention the mask removes ``j > i``, leaving the paper's ``-m_h (i - j)``.
    """
    if positional != "alibi":
        return None
    return alibi_bias(seq_len, num_heads, device=like.device).to(like.dtype)


def _causal_self_attention(
    positional: str,
    seq_len: int,
    num_heads: int,
    like: torch.Tensor,
    mask: torch.Tensor | None,
    cache: KVCache | None,
) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The self-attention mask and bias for ``seq_len`` new tokens after ``cache.length``
    cached ones: rows ``offset .. offset + seq_len - 1`` of the full causal mask and ALiBi bias,
    ``(seq_len, total)`` and ``(num_heads, seq_len, total)``; ``mask`` is combined with the mask.
    """
    offset = 0 if cache is None else cache.length
    total = offset + seq_len
    self_mask = causal_mask(total, device=like.device)[offset:]  # (L, total): no future keys
    if offset:  # 4-D, so that a (L, total) mask is never read as (batch, keys) key padding
        self_mask = self_mask[None, None]  # (1, 1, L, total)
    if mask is not None:
        self_mask = self_mask & mask  # (B, 1, L, total)
    bias = _self_attention_bias(positional, total, num_heads, like)
    return self_mask, None if bias is None else bias[:, offset:]  # (H, L, total)


def _check_cache(cache: object, num_layers: int) -> int:
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


# --------------------------------------------------------------------------------------------
# Blocks
# --------------------------------------------------------------------------------------------


class FeedForward(nn.Module):
    """Position-wise feed-forward network (paper, equation 2), with dropout on the hidden layer.

    ``(batch, seq_len, d_model) -> (batch, seq_len, d_model)`` through a hidden width ``d_ff``;
    the same two linear maps are applied at every position, independently.
    """

    def __init__(self, d_model: int, d_ff: int, dropout: float = 0.0) -> None:
        super().__init__()
        self.d_model = check_int("d_model", d_model, minimum=1)
        d_ff = check_int("d_ff", d_ff, minimum=1)
        self.linear1 = nn.Linear(d_model, d_ff)
        self.linear2 = nn.Linear(d_ff, d_model)
        self.dropout = nn.Dropout(check_probability("dropout", dropout))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        _check_width("x", x, self.d_model, ndim=None)
        hidden = torch.relu(self.linear1(x))  # (batch, seq_len, d_ff)
        return self.linear2(self.dropout(hidden))  # (batch, seq_len, d_model)


def _check_width(name: str, x: object, d_model: int, ndim: int | None = 3) -> None:
    """Raise unless ``x`` is a float tensor (of rank ``ndim``) whose last dimension is d_model."""
    check_tensor(name, x, ndim=ndim, min_ndim=1, floating=True)
    if x.shape[-1] != d_model:
        raise ValueError(
            f"{name} must have last dimension d_model={d_model}, got shape {tuple(x.shape)}"
        )


def _check_same_batch(src: object, tgt: object) -> None:
    # the dtypes: checked by encode and decode, which both models call next
    check_tensor("src", src, ndim=2)
    check_tensor("tgt", tgt, ndim=2)
    if src.shape[0] != tgt.shape[0]:
        raise ValueError(
            f"src and tgt must have the same batch size, got src {tuple(src.shape)} and "
            f"tgt {tuple(tgt.shape)}"
        )


def _check_layer_args(d_model: int, num_heads: int, d_ff: int, dropout: float, norm_first):
    check_int("d_model", d_model, minimum=1)
    check_int("num_heads", num_heads, minimum=1)
    if d_model % num_heads:
        raise ValueError(
            f"d_model must be divisible by num_heads, got d_model={d_model} and "
            f"num_heads={num_heads}"
        )
    check_int("d_ff", d_ff, minimum=1)
    check_probability("dropout", dropout)
    if not isinstance(norm_first, bool):
        raise TypeError(f"norm_first must be a bool, got {norm_first!r}")


class EncoderLayer(nn.Module):
    """Self-attention then feed-forward, each wrapped in a residual connection and LayerNorm.

    ``forward(x (B, L, d_model), mask=None, attn_bias=None, need_weights=False)`` returns
    ``(x (B, L, d_model), weights (B, num_heads, L, L) or None)``. With a causal ``mask`` this is
    also the layer of a decoder-only model. ``rotary`` and ``relative_max_distance`` are passed
    to the self-attention (see ``helpers.attention.MultiHeadAttention``).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
        **self_attention_options,
    ) -> None:
        super().__init__()
        _check_layer_args(d_model, num_heads, d_ff, dropout, norm_first)
        self.d_model, self.norm_first = d_model, norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout, **self_attention_options)
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
        _check_width("x", x, self.d_model)
        check_same_dtype("x", x, "the layer's weights", self.norm1.weight)
        if self.norm_first:  # pre-LN: x + Dropout(sublayer(LayerNorm(x)))
            h = self.norm1(x)
            a, weights = self.self_attn(h, h, h, mask, need_weights, attn_bias, cache)
            x = x + self.dropout1(a)
            x = x + self.dropout2(self.feed_forward(self.norm2(x)))
        else:  # post-LN: LayerNorm(x + Dropout(sublayer(x)))
            a, weights = self.self_attn(x, x, x, mask, need_weights, attn_bias, cache)
            x = self.norm1(x + self.dropout1(a))
            x = self.norm2(x + self.dropout2(self.feed_forward(x)))
        return x, weights  # (B, L, d_model), (B, H, L, L) or None


class DecoderLayer(nn.Module):
    """Masked self-attention, cross-attention to the encoder output, feed-forward; each in a
    residual connection with LayerNorm.

    ``forward(x (B, T, d_model), memory (B, S, d_model), self_mask=None, memory_mask=None,
    attn_bias=None, need_weights=False)`` returns ``(x (B, T, d_model), self_weights
    (B, H, T, T), cross_weights (B, H, T, S))`` (weights None unless ``need_weights``).
    ``self_mask`` should contain the causal mask; :class:`Transformer` always adds it.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        d_ff: int,
        dropout: float = 0.0,
        norm_first: bool = False,
        **self_attention_options,
    ) -> None:
        super().__init__()
        _check_layer_args(d_model, num_heads, d_ff, dropout, norm_first)
        self.d_model, self.norm_first = d_model, norm_first
        self.self_attn = MultiHeadAttention(d_model, num_heads, dropout, **self_attention_options)
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
        _check_width("x", x, self.d_model)
        _check_width("memory", memory, self.d_model)
        if self.norm_first:
            h = self.norm1(x)
            a, self_weights = self.self_attn(h, h, h, self_mask, need_weights, attn_bias, cache)
            x = x + self.dropout1(a)
            h = self.norm2(x)  # queries from the decoder, keys and values from the encoder
            a, cross_weights = self.cross_attn(h, memory, memory, memory_mask, need_weights)
            x = x + self.dropout2(a)
            x = x + self.dropout3(self.feed_forward(self.norm3(x)))
        else:
            a, self_weights = self.self_attn(x, x, x, self_mask, need_weights, attn_bias, cache)
            x = self.norm1(x + self.dropout1(a))
            a, cross_weights = self.cross_attn(x, memory, memory, memory_mask, need_weights)
            x = self.norm2(x + self.dropout2(a))
            x = self.norm3(x + self.dropout3(self.feed_forward(x)))
        return x, self_weights, cross_weights


# --------------------------------------------------------------------------------------------
# Models
# --------------------------------------------------------------------------------------------


def _check_model_args(d_model, num_heads, num_layers, d_ff, dropout, max_len, positional):
    """Validate the shared model arguments; return the positional scheme."""
    _check_layer_args(d_model, num_heads, d_ff, dropout, False)
    check_int("num_layers", num_layers, minimum=1)
    check_int("max_len", max_len, minimum=1)
    positional = check_choice("positional", positional, POSITIONAL_KINDS)
    if positional in ("sinusoidal", "rope") and d_model % 2:
        raise ValueError(f"d_model must be even for positional={positional!r}, got {d_model}")
    # rope's even head width: checked by MultiHeadAttention(rotary=True), with the same numbers
    return positional


def _check_mask(name: str, mask: torch.Tensor | None, shape: tuple[int, ...]) -> None:
    """Raise unless ``mask`` is None or a boolean tensor broadcastable to ``shape``."""
    if mask is None:
        return
    check_tensor(name, mask, boolean=True)
    # by hand: torch.broadcast_shapes costs ~50 us a call, and this runs in every forward
    fits = mask.ndim <= len(shape) and all(
        m in (1, s) for m, s in zip(reversed(mask.shape), reversed(shape), strict=False)
    )
    if not fits:
        raise ValueError(
            f"{name} of shape {tuple(mask.shape)} must broadcast to {shape} "
            f"(batch, 1, queries, keys)"
        )


def _check_memory(memory: object, batch: int, d_model: int) -> None:
    """Raise unless ``memory`` is a float tensor of shape ``(batch, src_len, d_model)``."""
    check_tensor("memory", memory, ndim=3, floating=True)
    if memory.shape[0] != batch or memory.shape[2] != d_model:
        raise ValueError(
            f"memory must have shape (batch={batch}, src_len, d_model={d_model}), "
            f"got {tuple(memory.shape)}"
        )


def _xavier_init(modules: list[nn.Module]) -> None:
    """Xavier-uniform weight matrices, as the Annotated Transformer and torch.nn.Transformer."""
    for module in modules:
        for parameter in module.parameters():
            if parameter.dim() > 1:
                nn.init.xavier_uniform_(parameter)


class Transformer(nn.Module):
    """Encoder-decoder Transformer (Vaswani et al., 2017), batch first.

    ``forward(src (B, S), tgt (B, T), src_mask=None, tgt_mask=None)`` returns logits
    ``(B, T, tgt_vocab_size)``: ``logits[:, t]`` scores the token that follows ``tgt[:, :t+1]``.

    - ``src_mask``: boolean, broadcastable to ``(B, 1, 1, S)`` (e.g.
      ``helpers.attention.padding_mask(src, pad_id)``); used by the encoder's self-attention and
      by the decoder's cross-attention.
    - ``tgt_mask``: boolean, broadcastable to ``(B, 1, T, T)``; the decoder always combines it
      with the causal mask, so leaving it out can never leak the future.

    ``encode`` and ``decode`` run the two halves separately (for greedy decoding); with
    ``return_attention=True`` they also return every layer's attention weights.
    ``norm_first=True`` gives pre-LN layers and a final LayerNorm after each stack.
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
    ) -> None:
        super().__init__()
        check_int("src_vocab_size", src_vocab_size, minimum=1)
        check_int("tgt_vocab_size", tgt_vocab_size, minimum=1)
        positional = _check_model_args(
            d_model, num_heads, num_layers, d_ff, dropout, max_len, positional
        )
        # norm_first: checked by every layer (_check_layer_args), with the same message
        relative_max_distance = check_int("relative_max_distance", relative_max_distance, 1)
        self.d_model, self.num_heads, self.num_layers = d_model, num_heads, num_layers
        self.positional, self.norm_first = positional, norm_first
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size

        self.src_embedding = TokenAndPositionEmbedding(
            src_vocab_size, d_model, max_len, positional, dropout
        )
        self.tgt_embedding = TokenAndPositionEmbedding(
            tgt_vocab_size, d_model, max_len, positional, dropout
        )
        options = _self_attention_options(positional, relative_max_distance)
        layer_args = (d_model, num_heads, d_ff, dropout, norm_first)
        self.encoder_layers = nn.ModuleList(
            EncoderLayer(*layer_args, **options) for _ in range(num_layers)
        )
        self.decoder_layers = nn.ModuleList(
            DecoderLayer(*layer_args, **options) for _ in range(num_layers)
        )
        # Pre-LN leaves the residual stream un-normalised: one LayerNorm closes each stack.
        self.encoder_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.decoder_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.output_projection = nn.Linear(d_model, tgt_vocab_size)
        _xavier_init([self.encoder_layers, self.decoder_layers, self.output_projection])

    def encode(
        self,
        src: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        return_attention: bool = False,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        """``src (B, S)`` -> ``memory (B, S, d_model)`` [and a list of ``(B, H, S, S)``]."""
        check_tensor("src", src, ndim=2, integer=True)
        check_ids("src", src, self.src_embedding.vocab_size)
        batch, src_len = src.shape
        _check_mask("src_mask", src_mask, (batch, 1, 1, src_len))
        x = self.src_embedding(src)  # (B, S, d_model)
        bias = _self_attention_bias(self.positional, src_len, self.num_heads, x)
        weights = []
        for layer in self.encoder_layers:
            x, w = layer(x, src_mask, bias, need_weights=return_attention)
            weights.append(w)
        memory = self.encoder_norm(x)
        return (memory, weights) if return_attention else memory

    def decode(
        self,
        tgt: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
        return_attention: bool = False,
        cache: KVCache | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor], list[torch.Tensor]]:
        """``tgt (B, T)`` and ``memory (B, S, d_model)`` -> logits ``(B, T, tgt_vocab_size)``
        [and lists of self-attention ``(B, H, T, T)`` and cross-attention ``(B, H, T, S)``].

        With a ``cache`` (:class:`~helpers.attention.KVCache`), ``tgt`` holds only the new
        tokens, at positions ``cache.length ..``; ``tgt_mask`` then covers every key so far:
        ``(B, 1, T, cache.length + T)``. Incremental decoding, notebook 15.
        """
        check_tensor("tgt", tgt, ndim=2, integer=True)
        check_ids("tgt", tgt, self.tgt_embedding.vocab_size)
        batch, tgt_len = tgt.shape
        offset = _check_cache(cache, self.num_layers)
        _check_memory(memory, batch, self.d_model)
        _check_mask("src_mask", src_mask, (batch, 1, 1, memory.shape[1]))
        _check_mask("tgt_mask", tgt_mask, (batch, 1, tgt_len, offset + tgt_len))
        x = self.tgt_embedding(tgt, offset)  # (B, T, d_model)
        self_mask, bias = _causal_self_attention(
            self.positional, tgt_len, self.num_heads, x, tgt_mask, cache
        )
        layer_caches = [None] * len(self.decoder_layers) if cache is None else cache.layers
        self_weights, cross_weights = [], []
        for layer, layer_cache in zip(self.decoder_layers, layer_caches, strict=True):
            x, w_self, w_cross = layer(
                x, memory, self_mask, src_mask, bias, return_attention, layer_cache
            )
            self_weights.append(w_self)
            cross_weights.append(w_cross)
        logits = self.output_projection(self.decoder_norm(x))  # (B, T, tgt_vocab_size)
        return (logits, self_weights, cross_weights) if return_attention else logits

    def forward(
        self,
        src: torch.Tensor,
        tgt: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """Teacher forcing: logits ``(B, T, tgt_vocab_size)`` for every target position."""
        _check_same_batch(src, tgt)
        memory = self.encode(src, src_mask)  # (B, S, d_model)
        return self.decode(tgt, memory, src_mask, tgt_mask)


class DecoderOnlyTransformer(nn.Module):
    """A causal language model from the same blocks: embeddings + position, ``num_layers``
    self-attention layers under a causal mask, and a projection to the vocabulary.

    ``forward(tokens (B, L), mask=None, return_attention=False)`` returns logits
    ``(B, L, vocab_size)``; ``logits[:, t]`` depends only on ``tokens[:, :t+1]``. ``mask``
    (boolean, broadcastable to ``(B, 1, L, L)``, e.g. a padding mask) is combined with the
    causal mask. With ``return_attention=True`` it returns ``(logits, [weights (B, H, L, L)])``.
    With a ``cache`` (:class:`~helpers.attention.KVCache`) ``tokens`` are only the new ones, at
    positions ``cache.length ..`` (see :func:`generate`, notebook 15).
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
    ) -> None:
        super().__init__()  # vocab_size: checked by TokenAndPositionEmbedding
        positional = _check_model_args(
            d_model, num_heads, num_layers, d_ff, dropout, max_len, positional
        )
        # norm_first: checked by every layer (_check_layer_args), with the same message
        relative_max_distance = check_int("relative_max_distance", relative_max_distance, 1)
        self.d_model, self.num_heads, self.num_layers = d_model, num_heads, num_layers
        self.positional, self.norm_first = positional, norm_first

        self.embedding = TokenAndPositionEmbedding(
            vocab_size, d_model, max_len, positional, dropout
        )
        options = _self_attention_options(positional, relative_max_distance)
        self.layers = nn.ModuleList(
            EncoderLayer(d_model, num_heads, d_ff, dropout, norm_first, **options)
            for _ in range(num_layers)
        )
        self.final_norm = nn.LayerNorm(d_model) if norm_first else nn.Identity()
        self.output_projection = nn.Linear(d_model, vocab_size)
        _xavier_init([self.layers, self.output_projection])

    def forward(
        self,
        tokens: torch.Tensor,
        mask: torch.Tensor | None = None,
        return_attention: bool = False,
        cache: KVCache | None = None,
    ) -> torch.Tensor | tuple[torch.Tensor, list[torch.Tensor]]:
        check_tensor("tokens", tokens, ndim=2)  # the dtype: checked by the embedding
        batch, seq_len = tokens.shape
        offset = _check_cache(cache, self.num_layers)
        _check_mask("mask", mask, (batch, 1, seq_len, offset + seq_len))
        x = self.embedding(tokens, offset)  # (B, L, d_model), at positions offset ..
        self_mask, bias = _causal_self_attention(
            self.positional, seq_len, self.num_heads, x, mask, cache
        )
        layer_caches = [None] * len(self.layers) if cache is None else cache.layers
        weights = []
        for layer, layer_cache in zip(self.layers, layer_caches, strict=True):
            x, w = layer(x, self_mask, bias, return_attention, layer_cache)
            weights.append(w)
        logits = self.output_projection(self.final_norm(x))  # (B, L, vocab_size)
        return (logits, weights) if return_attention else logits


def set_rotary_scaling(
    model: nn.Module,
    method: str | None,
    factor: float = 1.0,
    original_max_len: int | None = None,
    **options: float,
) -> tuple[torch.Tensor, float] | None:
    """Stretch the rotary embeddings of every self-attention in ``model`` (built with
    ``positional="rope"``) for a context ``factor`` times the training length: ``method`` is
    ``"linear"``, ``"ntk"`` or ``"yarn"`` (see :func:`~helpers.encodings.scaled_rotary_frequencies`,
    whose ``beta_fast``/``beta_slow`` pass through ``options``); ``None`` restores plain RoPE.
    Works on a trained model, with or without fine-tuning after. Returns ``(omega,
    attention_scale)``, or None. Notebook 15.
    """
    rotary = [m for m in model.modules() if isinstance(m, MultiHeadAttention) and m.rotary]
    if not rotary:
        raise ValueError(
            f"model has no rotary self-attention (build it with positional='rope'), got "
            f"{type(model).__name__}"
        )
    if method is None:
        for attention in rotary:
            attention.set_rotary_frequencies(None)
        return None
    first = rotary[0]
    omega, scale = scaled_rotary_frequencies(
        first.d_k, method, factor, first.rotary_base, original_max_len, **options
    )
    for attention in rotary:
        attention.set_rotary_frequencies(omega, scale)
    return omega, scale


class TorchReferenceTransformer(nn.Module):
    """``torch.nn.Transformer`` with the same embeddings, output projection, masks (course
    convention) and ``encode``/``decode`` interface as :class:`Transformer`: a reference to
    compare accuracy and speed with.

    The configuration is identical to :class:`Transformer` with the same arguments, including
    the final LayerNorms (present only with ``norm_first=True``; ``torch.nn.Transformer`` would
    add them to post-LN stacks too). Only the absolute schemes "sinusoidal", "learned" and
    "none" are available, since PyTorch's attention has no rotary or relative terms.
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
        check_int("src_vocab_size", src_vocab_size, minimum=1)
        check_int("tgt_vocab_size", tgt_vocab_size, minimum=1)
        _check_model_args(d_model, num_heads, num_layers, d_ff, dropout, max_len, positional)
        check_choice("positional", positional, ("sinusoidal", "learned", "none"))
        if not isinstance(norm_first, bool):
            raise TypeError(f"norm_first must be a bool, got {norm_first!r}")
        self.d_model, self.num_heads, self.num_layers = d_model, num_heads, num_layers
        self.positional, self.norm_first = positional, norm_first
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size

        self.src_embedding = TokenAndPositionEmbedding(
            src_vocab_size, d_model, max_len, positional, dropout
        )
        self.tgt_embedding = TokenAndPositionEmbedding(
            tgt_vocab_size, d_model, max_len, positional, dropout
        )
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
        check_tensor("src", src, ndim=2, integer=True)
        check_ids("src", src, self.src_embedding.vocab_size)
        batch, src_len = src.shape
        _check_mask("src_mask", src_mask, (batch, 1, 1, src_len))
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
        check_tensor("tgt", tgt, ndim=2, integer=True)
        check_ids("tgt", tgt, self.tgt_embedding.vocab_size)
        batch, tgt_len = tgt.shape
        _check_memory(memory, batch, self.d_model)
        src_len = memory.shape[1]
        _check_mask("src_mask", src_mask, (batch, 1, 1, src_len))
        _check_mask("tgt_mask", tgt_mask, (batch, 1, tgt_len, tgt_len))
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
        _check_same_batch(src, tgt)
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
    check_tensor("src", src, ndim=2, integer=True)
    if src.numel() == 0:
        raise ValueError(
            f"src must hold at least one sequence of one token, got shape {tuple(src.shape)}"
        )
    max_len = check_int("max_len", max_len, minimum=1)
    vocab = getattr(model, "tgt_vocab_size", None)  # None: a model that does not say
    for name, value in (("bos_id", bos_id), ("eos_id", eos_id), ("pad_id", pad_id)):
        if value is None:  # only eos_id may be None
            continue
        check_int(name, value, minimum=0)
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
    if not isinstance(use_cache, bool):
        raise TypeError(f"use_cache must be a bool, got {use_cache!r}")
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
    check_tensor("prompt", prompt, ndim=2, integer=True)
    if prompt.shape[1] == 0:
        raise ValueError(f"prompt must hold at least one token, got shape {tuple(prompt.shape)}")
    max_new_tokens = check_int("max_new_tokens", max_new_tokens, minimum=1)
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
    """Number of trainable parameters (buffers such as the sinusoidal table excluded)."""
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
