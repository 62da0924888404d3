"""Scaled dot-product attention, masks and multi-head attention, written to be read.

Mask convention used everywhere in the course: a boolean mask is **True where a query may
attend to a key** (as in ``torch.nn.functional.scaled_dot_product_attention``).
``torch.nn.MultiheadAttention`` uses the opposite polarity for its ``attn_mask`` and
``key_padding_mask``; :func:`to_ignore_mask` converts a course mask to that convention.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import (
    check_device,
    check_int,
    check_positive_float,
    check_probability,
    check_same_dtype,
    check_tensor,
)
from .encodings.relative import RelativePositionEmbedding
from .encodings.rotary import apply_rotary

__all__ = [
    "scaled_dot_product_attention",
    "causal_mask",
    "padding_mask",
    "to_ignore_mask",
    "MultiHeadAttention",
    "KVCache",
    "LayerKVCache",
]


def _check_broadcasts_into(name: str, extra: torch.Tensor, scores_shape: torch.Size) -> None:
    """Raise unless ``extra`` broadcasts to ``scores_shape`` without enlarging it."""
    # by hand: torch.broadcast_shapes costs ~50 us a call, and this runs in every attention
    fits = extra.ndim <= len(scores_shape) and all(
        e in (1, s) for e, s in zip(reversed(extra.shape), reversed(scores_shape), strict=False)
    )
    if not fits:
        raise ValueError(
            f"{name} of shape {tuple(extra.shape)} does not broadcast to the attention scores "
            f"of shape {tuple(scores_shape)} (..., L_q, L_k) without enlarging them"
        )


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    bias: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``softmax(q k^T / sqrt(d_k) + bias)`` restricted by ``mask``, applied to ``v``.

    Shapes: ``q (..., L_q, d_k)``, ``k (..., L_k, d_k)``, ``v (..., L_k, d_v)``; ``mask`` a
    boolean tensor (True = may attend) and ``bias`` a float tensor, each broadcastable to
    ``(..., L_q, L_k)``. Returns ``(output (..., L_q, d_v), weights (..., L_q, L_k))``.
    A query row with no visible key (all masked, or a bias of all ``-inf``) gets zero weights
    and a zero output, never NaN (NaN in the inputs still gives NaN, as in torch).
    """
    for name, x in (("q", q), ("k", k), ("v", v)):
        check_tensor(name, x, min_ndim=2, floating=True)
    dropout_p = check_probability("dropout_p", dropout_p)
    if not q.dtype == k.dtype == v.dtype:
        raise TypeError(
            f"q, k and v must share one dtype, got q {q.dtype}, k {k.dtype} and v {v.dtype}"
        )
    if q.shape[-1] != k.shape[-1]:
        raise ValueError(
            f"q and k must have the same last dimension d_k, got q {tuple(q.shape)} "
            f"and k {tuple(k.shape)}"
        )
    if k.shape[:-1] != v.shape[:-1]:
        raise ValueError(
            f"k and v must agree on every dimension but the last (one value per key), "
            f"got k {tuple(k.shape)} and v {tuple(v.shape)}"
        )
    if q.shape[:-2] != k.shape[:-2]:
        raise ValueError(
            f"q and k must have the same leading (batch, head) dimensions, got q "
            f"{tuple(q.shape)} and k {tuple(k.shape)}"
        )

    d_k = q.shape[-1]
    scores = q @ k.transpose(-2, -1) / math.sqrt(d_k)  # (..., L_q, L_k)
    if bias is not None:
        check_tensor("bias", bias, floating=True)
        _check_broadcasts_into("bias", bias, scores.shape)
        scores = scores + bias
    if mask is not None:
        check_tensor("mask", mask, boolean=True)
        _check_broadcasts_into("mask", mask, scores.shape)
        scores = scores.masked_fill(~mask, float("-inf"))
    # A row with no visible key (masked, or a bias of all -inf) would be softmax(all -inf) =
    # NaN: give it finite scores here and zero its weights below.
    empty = torch.isneginf(scores).all(dim=-1, keepdim=True)  # (..., L_q, 1)
    weights = torch.softmax(scores.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
    if mask is not None:
        weights = weights.masked_fill(~mask, 0.0)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


def causal_mask(seq_len: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Boolean ``(seq_len, seq_len)`` mask, True on and below the diagonal.

    Query ``i`` may attend to keys ``j <= i``: no position sees the future.
    """
    seq_len = check_int("seq_len", seq_len, minimum=1)
    device = check_device("device", device)
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


def padding_mask(tokens: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Boolean ``(batch, 1, 1, seq_len)`` mask, True for real tokens and False for padding.

    The two singleton dimensions broadcast over heads and queries; combine with a causal mask
    by a plain ``&``.
    """
    check_tensor("tokens", tokens, ndim=2, integer=True)
    pad_id = check_int("pad_id", pad_id)
    return (tokens != pad_id)[:, None, None, :]


def to_ignore_mask(mask: torch.Tensor) -> torch.Tensor:
    """Convert a course mask (True = may attend) to PyTorch's ``nn.MultiheadAttention``
    convention (True = ignore this key), for its ``attn_mask`` and ``key_padding_mask``."""
    check_tensor("mask", mask, boolean=True)
    return ~mask


class LayerKVCache:
    """The keys and values one self-attention layer has computed so far, ``(B, H, length, d_k)``
    each (notebook 15). ``length`` is also the position of the next token to come."""

    def __init__(self) -> None:
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    @property
    def length(self) -> int:
        return 0 if self.keys is None else self.keys.shape[-2]

    def extend(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append the new keys and values ``(B, H, L_new, d_k)``; return all of them."""
        check_tensor("k", k, ndim=4, floating=True)
        check_tensor("v", v, ndim=4, floating=True)
        if k.shape != v.shape or (self.keys is not None and k.shape[:2] != self.keys.shape[:2]):
            cached = None if self.keys is None else tuple(self.keys.shape)
            raise ValueError(
                f"k and v must have one shape (B, H, L_new, d_k) matching the cached "
                f"{cached}, got k {tuple(k.shape)} and v {tuple(v.shape)}"
            )
        if self.keys is not None:
            k = torch.cat([self.keys, k], dim=-2)  # (B, H, length + L_new, d_k)
            v = torch.cat([self.values, v], dim=-2)
        self.keys, self.values = k, v
        return k, v


class KVCache:
    """A key/value cache for incremental decoding: one :class:`LayerKVCache` per layer.

    Pass it to a model's forward (``DecoderOnlyTransformer``, ``Transformer.decode``) together
    with only the new tokens: every self-attention layer appends their keys and values and
    attends over all of them, and the new tokens get their true positions ``length, length+1,
    ...`` in every scheme. Derived in notebook 15.
    """

    def __init__(self, num_layers: int) -> None:
        num_layers = check_int("num_layers", num_layers, minimum=1)
        self.layers = [LayerKVCache() for _ in range(num_layers)]

    @property
    def length(self) -> int:
        """How many tokens are cached: the position of the next token."""
        return self.layers[0].length


class MultiHeadAttention(nn.Module):
    """Multi-head attention, batch first, as in Vaswani et al. (2017), section 3.2.2.

    ``d_model`` is split into ``num_heads`` heads of width ``d_k = d_model // num_heads``.
    ``forward(query, key, value, mask=None)`` returns ``(output (B, L_q, d_model),
    weights (B, num_heads, L_q, L_k))``; with ``need_weights=False`` it takes PyTorch's fused
    kernel and returns ``weights=None``.

    Position inside attention (notebooks 11-12), all off by default:

    - ``rotary=True``: rotate every head's queries and keys by their positions ``0 .. L - 1``
      (RoPE, :func:`~helpers.encodings.apply_rotary`, interleaved layout, ``rotary_base``)
      after the projections and the head split, so that ``q_i . k_j`` depends on ``j - i``.
    - ``relative_max_distance=m``: Shaw et al. (2018) relative representations, learned vectors
      ``a^K`` for the clipped offsets ``clip(j - i, -m, m)`` shared by all heads; the score term
      ``q_i . a^K_ij / sqrt(d_k)`` joins the scores as an additive bias. With
      ``relative_values=True`` a second table ``a^V`` adds ``sum_j alpha_ij a^V_ij`` to each
      head's output (this needs the weights, so ``need_weights=False`` then computes them with
      the readable path instead of the fused kernel).
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        *,
        rotary: bool = False,
        rotary_base: float = 10000.0,
        relative_max_distance: int | None = None,
        relative_values: bool = False,
    ):
        super().__init__()
        d_model = check_int("d_model", d_model, minimum=1)
        num_heads = check_int("num_heads", num_heads, minimum=1)
        if d_model % num_heads:
            raise ValueError(
                f"d_model must be divisible by num_heads, got d_model={d_model} and "
                f"num_heads={num_heads}"
            )
        if not isinstance(bias, bool):
            raise TypeError(f"bias must be a bool, got {bias!r}")
        self.d_model = d_model
        self.num_heads = num_heads
        self.d_k = d_model // num_heads
        self.dropout = check_probability("dropout", dropout)
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        for name, flag in (("rotary", rotary), ("relative_values", relative_values)):
            if not isinstance(flag, bool):
                raise TypeError(f"{name} must be a bool, got {flag!r}")
        self.rotary = rotary
        self.rotary_base = check_positive_float("rotary_base", rotary_base)
        # Frequencies other than base**(-2k/d_k) and a factor on queries and keys: see
        # set_rotary_frequencies (long contexts, notebook 15). None and 1.0: plain RoPE.
        self.register_buffer("rotary_frequencies", None, persistent=False)  # (d_k/2,) or None
        self.rotary_scale = 1.0
        if rotary and self.d_k % 2:
            raise ValueError(
                f"rotary=True needs an even head width d_k = d_model // num_heads, got "
                f"d_k={self.d_k} (d_model={d_model}, num_heads={num_heads})"
            )
        self.relative_k: RelativePositionEmbedding | None = None
        self.relative_v: RelativePositionEmbedding | None = None
        if relative_max_distance is not None:
            m = check_int("relative_max_distance", relative_max_distance, minimum=0)
            self.relative_k = RelativePositionEmbedding(m, self.d_k)
            if relative_values:
                self.relative_v = RelativePositionEmbedding(m, self.d_k)
        elif relative_values:
            raise ValueError("relative_values=True needs relative_max_distance, got None")

    def set_rotary_frequencies(
        self, frequencies: torch.Tensor | None, attention_scale: float = 1.0
    ) -> None:
        """Rotate with ``frequencies (d_k/2,)`` instead of ``rotary_base``'s, and multiply the
        rotated queries and keys by ``attention_scale`` (YaRN's temperature); ``None`` and 1.0
        restore plain RoPE. Use :func:`~helpers.encodings.scaled_rotary_frequencies` to make
        them (notebook 15)."""
        if not self.rotary:
            raise ValueError("set_rotary_frequencies needs a module built with rotary=True")
        if frequencies is not None:
            check_tensor("frequencies", frequencies, ndim=1, floating=True)
            if frequencies.shape[0] != self.d_k // 2:
                raise ValueError(
                    f"frequencies must have shape (d_k/2,) = ({self.d_k // 2},), got "
                    f"{tuple(frequencies.shape)}"
                )
        self.rotary_frequencies = frequencies
        self.rotary_scale = check_positive_float("attention_scale", attention_scale)

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        x = x.view(batch, length, self.num_heads, self.d_k)  # (B, L, H, d_k)
        return x.transpose(1, 2)  # (B, H, L, d_k)

    def _merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, _, length, _ = x.shape
        x = x.transpose(1, 2)  # (B, L, H, d_k)
        return x.reshape(batch, length, self.d_model)  # (B, L, d_model)

    def _check_inputs(self, query, key, value) -> None:
        for name, x in (("query", query), ("key", key), ("value", value)):
            check_tensor(name, x, ndim=3, floating=True)
            check_same_dtype(name, x, "the module's weights", self.q_proj.weight)
            if x.shape[-1] != self.d_model:
                raise ValueError(
                    f"{name} must have last dimension d_model={self.d_model}, "
                    f"got shape {tuple(x.shape)}"
                )
        if key.shape[:2] != value.shape[:2] or query.shape[0] != key.shape[0]:
            raise ValueError(
                "query, key and value must share the batch size and key and value the length, "
                f"got query {tuple(query.shape)}, key {tuple(key.shape)}, value {tuple(value.shape)}"
            )

    def forward(
        self,
        query: torch.Tensor,
        key: torch.Tensor,
        value: torch.Tensor,
        mask: torch.Tensor | None = None,
        need_weights: bool = True,
        attn_bias: torch.Tensor | None = None,
        cache: LayerKVCache | None = None,
    ) -> tuple[torch.Tensor, torch.Tensor | None]:
        """Attend from ``query (B, L_q, d_model)`` to ``key``/``value (B, L_k, d_model)``.

        ``mask``: boolean, True = may attend, broadcastable to ``(B, num_heads, L_q, L_k)``:
        ``(B, 1, 1, L_k)``, ``(L_q, L_k)`` or ``(B, 1, L_q, L_k)``; a 3-D ``(B, L_q, L_k)`` mask
        is rejected, since broadcasting would line its batch axis up with the heads.
        ``attn_bias``: optional additive float bias of the same broadcast shape (ALiBi).
        ``cache`` (self-attention only): the new tokens' keys and values are appended to it and
        the queries attend to every cached key; the new tokens sit at positions
        ``cache.length ..``, which rotary and relative terms use. ``mask`` and ``attn_bias``
        then cover all keys: ``(..., L_q, cache.length + L_k)``.
        """
        self._check_inputs(query, key, value)
        if cache is not None and not isinstance(cache, LayerKVCache):
            raise TypeError(f"cache must be a LayerKVCache or None, got {type(cache).__name__}")
        offset = 0 if cache is None else cache.length  # position of the first new token
        if not isinstance(need_weights, bool):
            raise TypeError(f"need_weights must be a bool, got {need_weights!r}")
        if mask is not None:
            check_tensor("mask", mask, boolean=True)
            if _ambiguous_2d(mask, query.shape[0], query.shape[1], offset + key.shape[1]):
                batch = query.shape[0]
                raise ValueError(
                    f"mask of shape {tuple(mask.shape)} is ambiguous when batch size == L_q "
                    f"== {batch}: a 2-D mask is read as (L_q, L_k); give a key-padding mask as "
                    f"(B, 1, 1, L_k)"
                )
            if mask.ndim == 3 and mask.shape[0] != 1:
                # (B, L_q, L_k) would line B up with the heads axis and broadcast silently wrong.
                raise ValueError(
                    f"mask of shape {tuple(mask.shape)} is ambiguous: a 3-D mask lines up its "
                    f"first dimension with the heads, not the batch; give (B, 1, L_q, L_k) or "
                    f"(L_q, L_k)"
                )
        q = self._split_heads(self.q_proj(query))  # (B, H, L_q, d_k)
        k = self._split_heads(self.k_proj(key))  # (B, H, L_k, d_k)
        v = self._split_heads(self.v_proj(value))  # (B, H, L_k, d_k)
        if self.rotary:  # queries and keys each at their positions offset, offset + 1, ...
            omega, scale = self.rotary_frequencies, self.rotary_scale
            q = apply_rotary(q, _positions(offset, q), self.rotary_base, frequencies=omega)
            k = apply_rotary(k, _positions(offset, k), self.rotary_base, frequencies=omega)
            if scale != 1.0:  # YaRN: q . k grows by scale**2, a lower softmax temperature
                q, k = q * scale, k * scale
        if cache is not None:
            k, v = cache.extend(k, v)  # (B, H, offset + L_k, d_k): every key so far
        if self.relative_k is not None:
            # sdpa adds its bias after dividing q . k by sqrt(d_k): scale the term the same way.
            rel = self.relative_k.scores(q, k.shape[-2], offset) / math.sqrt(self.d_k)
            attn_bias = rel if attn_bias is None else attn_bias + rel  # (B, H, L_q, L_k)
        dropout_p = self.dropout if self.training else 0.0
        if need_weights or self.relative_v is not None:
            out, weights = scaled_dot_product_attention(q, k, v, mask, dropout_p, attn_bias)
            if self.relative_v is not None:
                out = out + self.relative_v.values(weights, offset)  # (B, H, L_q, d_k)
            weights = weights if need_weights else None
        else:
            out, weights = _fused_attention(q, k, v, mask, dropout_p, attn_bias), None
        return self.out_proj(self._merge_heads(out)), weights


def _positions(offset: int, x: torch.Tensor) -> torch.Tensor | None:
    """Positions ``offset .. offset + L - 1`` of the rows of ``x (..., L, d)``; None (the
    default ``0 .. L - 1``) without an offset."""
    if offset == 0:
        return None
    return torch.arange(offset, offset + x.shape[-2], device=x.device)


def _ambiguous_2d(mask: torch.Tensor, batch: int, len_q: int, len_k: int) -> bool:
    """A 2-D mask that may be (B, L_k) key padding read as (L_q, L_k): B == L_q, not causal."""
    if mask.ndim != 2 or batch != len_q or batch == 1 or mask.shape != (batch, len_k):
        return False
    return not torch.equal(mask, causal_mask(len_q).to(mask.device)[:, :len_k])


def _fused_attention(q, k, v, mask, dropout_p, bias) -> torch.Tensor:
    """PyTorch's fused kernel with the course's guarantees (checked shapes, no NaN rows)."""
    scores_shape = q.shape[:-1] + k.shape[-2:-1]  # (B, H, L_q, L_k)
    visible = None  # where a key is visible: mask True and bias above -inf
    if mask is not None:  # its dtype was checked by MultiHeadAttention.forward
        _check_broadcasts_into("mask", mask, scores_shape)
        visible = mask
    if bias is not None:
        check_tensor("attn_bias", bias, floating=True)
        _check_broadcasts_into("attn_bias", bias, scores_shape)
        visible = ~torch.isneginf(bias) if visible is None else visible & ~torch.isneginf(bias)
    if visible is None:
        return F.scaled_dot_product_attention(q, k, v, dropout_p=dropout_p)
    # Open rows with no visible key, so that no kernel meets softmax(all -inf) = NaN
    # (forward or backward); their output is zeroed below, as in the readable path.
    empty = ~visible.any(dim=-1, keepdim=True)  # (..., L_q, 1)
    attn_mask = None if mask is None else mask | empty
    if bias is not None:
        bias = torch.where(empty, 0.0, bias)
        attn_mask = bias if mask is None else torch.where(attn_mask, bias, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p)
    return out.masked_fill(empty, 0.0)
