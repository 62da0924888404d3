"""The models and their configuration: what a reader builds and trains.

    TransformerConfig        the sizes and options of a model, checked once (config.py)
    Transformer              embeddings + position, N encoder layers, N decoder layers, projection
    DecoderOnlyTransformer   a causal language model: embeddings + N causal layers + projection
    count_parameters         the number of trainable parameters

Position (argument ``positional``): the models look the scheme up in
``helpers.encodings.POSITION_SCHEMES``, whose entry says where it enters: the embeddings
(``TokenAndPositionalEmbedding``), every self-attention (a position module given to
``MultiHeadAttention``), or an additive score bias. No code here branches on a scheme's name.
Each public method checks its arguments once; the layers' unchecked cores run below it.
"""

from __future__ import annotations

import torch
from torch import nn

from .._checks import (
    fits_into,
    require_bool,
    require_ids,
    require_int,
    require_same_dtype,
    require_tensor,
)
from ..attention import KVCache, causal_mask
from ..attention_sinks import chunked_mask, sliding_window_mask
from ..encodings import PositionScheme, TokenAndPositionalEmbedding
from .caches import WindowedKVCache
from .config import TransformerConfig, _configured
from .layers import DecoderLayer, EncoderLayer, _Block

__all__ = ["TransformerConfig", "Transformer", "DecoderOnlyTransformer", "count_parameters"]


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
        return nn.ModuleList(layer(**self.config.layer_args(i)) for i in range(self.num_layers))

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
    The sizes and options are one :class:`TransformerConfig` (``self.config``): pass it as
    ``config``, or pass its fields by name (``d_model=32, dropout=0.0``), which build one (and
    replace those fields of ``config`` when both are given). ``norm_first=True`` gives pre-LN
    layers and a final LayerNorm after each stack. ``tie_embeddings=True`` (paper, section 3.4)
    shares one matrix between the source and target embeddings (the vocabularies must agree)
    and the output projection. ``nope_layers`` applies to layer ``i`` of both stacks.
    Trained in notebook 10.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        config: TransformerConfig | None = None,
        **options: object,
    ) -> None:
        super().__init__()
        require_int("src_vocab_size", src_vocab_size, minimum=1)
        require_int("tgt_vocab_size", tgt_vocab_size, minimum=1)
        config = _configured(config, options)
        if config.layer_types is not None:
            raise ValueError(
                "layer_types (position by layer type) is for DecoderOnlyTransformer; the "
                f"encoder-decoder takes one scheme for every layer, got {config.layer_types!r}"
            )
        tie_embeddings = config.tie_embeddings
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
        offset = _require_cache(cache, self.num_layers, tgt_len, self.scheme)
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
    positions ``cache.length ..`` (see :func:`generate`, notebook 15); a
    :class:`~helpers.transformer.WindowedKVCache` first makes room for them (notebook 17).
    The sizes and options are one :class:`TransformerConfig` (``self.config``), given as
    ``config`` or by its field names, exactly as for :class:`Transformer` (same defaults).
    ``tie_embeddings=True`` ties the output projection's weight to the token embedding (paper,
    section 3.4); ``nope_layers`` lists the layers without position (notebook 17);
    ``layer_types`` and ``rope_parameters`` give each layer its position, window or chunk by
    its type (notebook 18). Trained in notebooks 12, 15, 17 and 18.
    """

    def __init__(
        self,
        vocab_size: int,
        config: TransformerConfig | None = None,
        **options: object,
    ) -> None:
        super().__init__()  # vocab_size: checked by TokenAndPositionalEmbedding
        config = _configured(config, options)
        tie_embeddings = config.tie_embeddings
        self._setup(config)
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
        offset = _require_cache(cache, self.num_layers, seq_len, self.scheme)
        _require_mask("mask", mask, (batch, 1, seq_len, offset + seq_len))
        require_bool("need_weights", need_weights)
        x = self.embedding._forward(tokens, offset)  # (B, L, d_model), at positions offset ..
        self_mask, bias = self._self_attention(seq_len, x, mask, offset)
        caches = [None] * len(self.layers) if cache is None else cache.layers
        weights = []
        for index, (layer, layer_cache) in enumerate(zip(self.layers, caches, strict=True)):
            span = self.config.layer_span(index)  # a sliding or chunked layer (notebook 18)
            layer_mask = self_mask if span is None else self_mask & _span_mask(span, x, offset)
            x, w = layer._forward(x, layer_mask, bias, need_weights, layer_cache)
            weights.append(w)
        logits = self.output_projection(self.final_norm(x))  # (B, L, vocab_size)
        return (logits, weights) if need_weights else logits


def _span_mask(span: tuple[str, int], x: torch.Tensor, offset: int) -> torch.Tensor:
    """Rows ``offset ..`` of a sliding-window or chunked mask over every key so far:
    ``(L, offset + L)`` for the ``L`` new tokens of ``x (B, L, d_model)``."""
    kind, size = span
    total = offset + x.shape[1]
    build = sliding_window_mask if kind == "sliding" else chunked_mask
    return build(total, size)[offset:].to(x.device)


def _require_same_batch(src: object, tgt: object) -> None:
    # the dtypes: checked by encode and decode, which both models call next
    require_tensor("src", src, ndim=2)
    require_tensor("tgt", tgt, ndim=2)
    if src.shape[0] != tgt.shape[0]:
        raise ValueError(
            f"src and tgt must have the same batch size, got src {tuple(src.shape)} and "
            f"tgt {tuple(tgt.shape)}"
        )


def _require_cache(cache: object, num_layers: int, num_new: int, scheme: PositionScheme) -> int:
    """Return the cached length (0 without a cache) after checking the cache fits the model;
    a windowed cache first makes room for ``num_new`` tokens."""
    if cache is None:
        return 0
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache or None, got {type(cache).__name__}")
    if len(cache.layers) != num_layers:
        raise ValueError(
            f"cache must have one slot per layer ({num_layers}), got {len(cache.layers)}"
        )
    if isinstance(cache, WindowedKVCache):
        if scheme.enters not in ("rotation", "nowhere"):
            raise ValueError(
                f"a WindowedKVCache moves keys to new positions, which only rotary (or no) "
                f"position allows, got a model with positional={scheme.name!r}"
            )
        cache.make_room(num_new)
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


def count_parameters(module: nn.Module) -> int:
    """Number of trainable parameters (buffers such as the sinusoidal table excluded).

    Used in notebooks 09, 10, 11 and 12.
    """
    if not isinstance(module, nn.Module):
        raise TypeError(f"module must be a torch.nn.Module, got {type(module).__name__}")
    return sum(p.numel() for p in module.parameters() if p.requires_grad)
