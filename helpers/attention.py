"""Scaled dot-product attention, masks and multi-head attention, written to be read.

Where to read first: :func:`scaled_dot_product_attention` (derived in notebook 06), whose body
is the formula, then :meth:`MultiHeadAttention.forward` (notebook 08). Each public function
checks its arguments in one call at the top and then runs an unchecked core (``_attention``,
``MultiHeadAttention._forward``); the layers and models call those cores directly, so an
argument is checked once, where it enters. The checks themselves sit at the bottom of the file.

Mask convention used everywhere in the course: a boolean mask is **True where a query may
attend to a key** (as in ``torch.nn.functional.scaled_dot_product_attention``).
``torch.nn.MultiheadAttention`` uses the opposite polarity for its ``attn_mask`` and
``key_padding_mask``; :func:`to_ignore_mask` converts a course mask to that convention.

Position inside attention (rotary, relative, ALiBi, graph distances: notebooks 11, 12 and 14)
enters through two generic doors: a *position module* (``MultiHeadAttention(position=...)``)
that may rotate queries and keys and add score and value terms, and an additive score bias
``attn_bias``. This file knows no scheme by name; ``helpers.encodings.registry`` does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import torch
import torch.nn.functional as F
from torch import nn

from ._checks import (
    fits_into,
    require_bool,
    require_device,
    require_int,
    require_probability,
    require_same_dtype,
    require_tensor,
)

__all__ = [
    "scaled_dot_product_attention",
    "causal_mask",
    "padding_mask",
    "to_ignore_mask",
    "MultiHeadAttention",
    "KVCache",
    "LayerKVCache",
]


def scaled_dot_product_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    mask: torch.Tensor | None = None,
    dropout_p: float = 0.0,
    attn_bias: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """``softmax(q k^T / sqrt(d_k) + attn_bias)`` restricted by ``mask``, applied to ``v``.

    Shapes: ``q (..., L_q, d_k)``, ``k (..., L_k, d_k)``, ``v (..., L_k, d_v)``; ``mask`` a
    boolean tensor (True = may attend) and ``attn_bias`` a float tensor, each broadcastable to
    ``(..., L_q, L_k)``. Returns ``(output (..., L_q, d_v), weights (..., L_q, L_k))``.
    A query row with no visible key (all masked, or a bias of all ``-inf``) gets zero weights
    and a zero output, never NaN (NaN in the inputs still gives NaN, as in torch).
    Derived in notebook 06; masks in notebook 07; used by every model of the course.
    """
    dropout_p = _require_attention_args(q, k, v, mask, dropout_p, attn_bias)
    return _attention(q, k, v, mask, dropout_p, attn_bias)


def _attention(q, k, v, mask, dropout_p, attn_bias) -> tuple[torch.Tensor, torch.Tensor]:
    """:func:`scaled_dot_product_attention` without the argument checks."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., L_q, L_k)
    if attn_bias is not None:
        scores = scores + attn_bias
    if mask is not None:
        scores = scores.masked_fill(~mask, float("-inf"))
    # A row with no visible key (masked, or a bias of all -inf) would be softmax(all -inf) =
    # NaN: give it finite scores here and zero its weights.
    empty = torch.isneginf(scores).all(dim=-1, keepdim=True)  # (..., L_q, 1)
    weights = torch.softmax(scores.masked_fill(empty, 0.0), dim=-1).masked_fill(empty, 0.0)
    if dropout_p > 0.0:
        weights = F.dropout(weights, p=dropout_p)
    return weights @ v, weights  # (..., L_q, d_v), (..., L_q, L_k)


def causal_mask(seq_len: int, device: torch.device | str | None = None) -> torch.Tensor:
    """Boolean ``(seq_len, seq_len)`` mask, True on and below the diagonal.

    Query ``i`` may attend to keys ``j <= i``: no position sees the future.
    Derived in notebook 07; used in notebooks 08, 09, 11 and 13.
    """
    seq_len = require_int("seq_len", seq_len, minimum=1)
    device = require_device("device", device)
    return torch.ones(seq_len, seq_len, dtype=torch.bool, device=device).tril()


def padding_mask(tokens: torch.Tensor, pad_id: int) -> torch.Tensor:
    """Boolean ``(batch, 1, 1, seq_len)`` mask, True for real tokens and False for padding.

    The two singleton dimensions broadcast over heads and queries; combine with a causal mask
    by a plain ``&``.
    Derived in notebook 07; used in notebooks 08 and 13.
    """
    require_tensor("tokens", tokens, ndim=2, integer=True)
    pad_id = require_int("pad_id", pad_id)
    return (tokens != pad_id)[:, None, None, :]


def to_ignore_mask(mask: torch.Tensor) -> torch.Tensor:
    """Convert a course mask (True = may attend) to PyTorch's ``nn.MultiheadAttention``
    convention (True = ignore this key), for its ``attn_mask`` and ``key_padding_mask``.
    Derived in notebook 07; used in notebooks 08 and 13."""
    require_tensor("mask", mask, boolean=True)
    return ~mask


class LayerKVCache:
    """The keys and values one self-attention layer has computed so far, ``(B, H, length, d_k)``
    each (notebook 15). ``length`` is also the position of the next token to come."""

    # Keys cached after rotation, at their positions; a windowed cache (notebook 17) stores them
    # before rotation and has MultiHeadAttention rotate every key at its slot at every step.
    rotates_at_slots: bool = False

    def __init__(self) -> None:
        self.keys: torch.Tensor | None = None
        self.values: torch.Tensor | None = None

    @property
    def length(self) -> int:
        return 0 if self.keys is None else self.keys.shape[-2]

    @property
    def position(self) -> int:
        """The position of the next token: ``length`` here (a windowed cache may differ)."""
        return self.length

    def extend(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Append the new keys and values ``(B, H, L_new, d_k)``; return all of them."""
        require_tensor("k", k, ndim=4, floating=True)
        require_tensor("v", v, floating=True)  # its rank: k's, as its shape must be k's
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
        num_layers = require_int("num_layers", num_layers, minimum=1)
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
    kernel and returns ``weights=None``. ``bias``: whether the four linear maps have a bias.

    ``position`` (optional): a function of the head width ``d_k`` that builds a position
    module (a :class:`~helpers.encodings.PositionalAttention`): it may rotate each head's
    queries and keys (rotary), add a term to the scores and one to the outputs (relative).
    The classes themselves are such functions: ``position=RotaryPositionalAttention``, or
    ``position=lambda d_k: RelativePositionalAttention(d_k, max_distance=2)``. It is built after
    the projections, so that a seeded model draws its weights in the same order with any scheme.
    Derived in notebook 08; position inside it in notebook 11.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        *,
        position: Callable[[int], nn.Module] | None = None,
    ):
        super().__init__()
        d_model = require_int("d_model", d_model, minimum=1)
        num_heads = require_int("num_heads", num_heads, minimum=1)
        if d_model % num_heads:
            raise ValueError(
                f"d_model must be divisible by num_heads, got d_model={d_model} and "
                f"num_heads={num_heads}"
            )
        self.d_model, self.num_heads, self.d_k = d_model, num_heads, d_model // num_heads
        self.dropout = require_probability("dropout", dropout)
        require_bool("bias", bias)
        self.q_proj = nn.Linear(d_model, d_model, bias=bias)
        self.k_proj = nn.Linear(d_model, d_model, bias=bias)
        self.v_proj = nn.Linear(d_model, d_model, bias=bias)
        self.out_proj = nn.Linear(d_model, d_model, bias=bias)
        self.position = None if position is None else _build_position(position, self.d_k)

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
        ``attn_bias``: optional additive float bias of the same broadcast shape, e.g. ALiBi's
        ``(num_heads, L_q, L_k)`` or one per example ``(B, num_heads, L_q, L_k)`` (graph
        distances). ``cache`` (self-attention only): the new tokens' keys and values are
        appended to it and the queries attend to every cached key; the new tokens sit at
        positions ``cache.position ..`` (``cache.length`` except in a windowed cache), which the
        position module uses. ``mask`` and ``attn_bias`` then cover all keys:
        ``(..., L_q, cache.length + L_k)``.
        """
        self._require_inputs(query, key, value, mask, need_weights, attn_bias, cache)
        return self._forward(query, key, value, mask, need_weights, attn_bias, cache)

    def _forward(self, query, key, value, mask, need_weights, attn_bias, cache):
        """:meth:`forward` without the argument checks (the layers call this after theirs)."""
        q = self._split_heads(self.q_proj(query))  # (B, H, L_q, d_k)
        k = self._split_heads(self.k_proj(key))  # (B, H, L_k, d_k)
        v = self._split_heads(self.v_proj(value))  # (B, H, L_k, d_k)
        offset = 0 if cache is None else cache.position  # the position of the first new token
        at_slots = cache is not None and cache.rotates_at_slots  # keys cached before rotation
        if self.position is not None and not at_slots:  # e.g. rotary: q, k turned by position
            q, k = self.position.rotate(q, k, offset)
        if cache is not None:
            k, v = cache.extend(k, v)  # (B, H, length + L_k, d_k): every key so far
        if self.position is not None and at_slots:  # every key at its slot, queries last
            q = self.position.rotate(q, q, k.shape[-2] - q.shape[-2])[0]
            k = self.position.rotate(k, k, 0)[1]
        if self.position is not None:  # e.g. relative: a score term q_i . a_ij / sqrt(d_k)
            attn_bias = _plus(attn_bias, self.position.score_bias(q, k.shape[-2], offset))
        out, weights = self._attend(q, k, v, mask, need_weights, attn_bias, offset)
        return self.out_proj(self._merge_heads(out)), weights  # (B, L_q, d_model)

    def _attend(self, q, k, v, mask, need_weights, attn_bias, offset):
        """Every head at once: ``(B, H, L_q, d_k)`` and the weights (None unless asked for)."""
        dropout_p = self.dropout if self.training else 0.0
        value_term = self.position is not None and self.position.needs_weights
        if not (need_weights or value_term):  # PyTorch's fused kernel: no weights to return
            return _fused_attention(q, k, v, mask, dropout_p, attn_bias), None
        out, weights = _attention(q, k, v, mask, dropout_p, attn_bias)  # (B, H, L_q, d_k)
        if value_term:  # e.g. relative: sum_j alpha_ij a^V_ij
            out = out + self.position.value_term(weights, offset)
        return out, weights if need_weights else None

    def _split_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, length, _ = x.shape
        x = x.view(batch, length, self.num_heads, self.d_k)  # (B, L, H, d_k)
        return x.transpose(1, 2)  # (B, H, L, d_k)

    def _merge_heads(self, x: torch.Tensor) -> torch.Tensor:
        batch, _, length, _ = x.shape
        x = x.transpose(1, 2)  # (B, L, H, d_k)
        return x.reshape(batch, length, self.d_model)  # (B, L, d_model)

    def _require_inputs(self, query, key, value, mask, need_weights, attn_bias, cache) -> None:
        for name, x in (("query", query), ("key", key), ("value", value)):
            require_tensor(name, x, ndim=3, floating=True)
            require_same_dtype(name, x, "the module's weights", self.q_proj.weight)
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
        self._require_options(query.shape, key.shape[1], mask, need_weights, attn_bias, cache)

    def _require_options(self, query_shape, len_k, mask, need_weights, attn_bias, cache) -> None:
        """Check what comes with checked inputs ``query (B, L_q, d_model)`` and ``len_k`` new
        keys: the mask, the flag, the bias and the cache (the layers call this for theirs)."""
        if cache is not None and not isinstance(cache, LayerKVCache):
            raise TypeError(f"cache must be a LayerKVCache or None, got {type(cache).__name__}")
        require_bool("need_weights", need_weights)
        len_k += 0 if cache is None else cache.length  # every key: cached ones first
        scores_shape = (query_shape[0], self.num_heads, query_shape[1], len_k)
        _require_mask(mask, scores_shape)
        _require_bias(attn_bias, scores_shape)


def _build_position(position: object, d_k: int) -> nn.Module:
    """``position(d_k)``, after checking it is a function that builds a module."""
    if not callable(position) or isinstance(position, nn.Module):
        raise TypeError(
            f"position must be a function of the head width d_k that builds a position module, "
            f"such as helpers.encodings.RotaryPositionalAttention, got {type(position).__name__}"
        )
    module = position(d_k)
    if not isinstance(module, nn.Module):
        raise TypeError(f"position(d_k) must return an nn.Module, got {type(module).__name__}")
    return module


def _plus(a: torch.Tensor | None, b: torch.Tensor | None) -> torch.Tensor | None:
    """``a + b`` where a missing term (None) counts as zero."""
    if a is None or b is None:
        return b if a is None else a
    return a + b


def _fused_attention(q, k, v, mask, dropout_p, attn_bias) -> torch.Tensor:
    """PyTorch's fused kernel with the course's guarantee: no NaN rows (arguments checked)."""
    visible = mask  # where a key is visible: mask True and bias above -inf
    if attn_bias is not None and bool(torch.isneginf(attn_bias).any()):
        finite = ~torch.isneginf(attn_bias)
        visible = finite if visible is None else visible & finite
    if visible is None:  # no mask, and a bias (if any) that hides no key
        return F.scaled_dot_product_attention(q, k, v, attn_mask=attn_bias, dropout_p=dropout_p)
    if bool(visible.any(dim=-1).all()):  # every row sees a key: nothing to open or zero
        if attn_bias is not None:  # a finite bias: the mask's hidden keys at -inf
            visible = torch.where(visible, attn_bias, float("-inf"))
        return F.scaled_dot_product_attention(q, k, v, attn_mask=visible, dropout_p=dropout_p)
    # Open rows with no visible key, so that no kernel meets softmax(all -inf) = NaN
    # (forward or backward); their output is zeroed below, as in the readable path.
    empty = ~visible.any(dim=-1, keepdim=True)  # (..., L_q, 1)
    attn_mask = None if mask is None else mask | empty
    if attn_bias is not None:
        attn_bias = torch.where(empty, 0.0, attn_bias)
        attn_mask = attn_bias if mask is None else torch.where(attn_mask, attn_bias, float("-inf"))
    out = F.scaled_dot_product_attention(q, k, v, attn_mask=attn_mask, dropout_p=dropout_p)
    return out.masked_fill(empty, 0.0)


# --------------------------------------------------------------------------------------------
# Argument checks, made once where an argument enters
# --------------------------------------------------------------------------------------------


def _require_attention_args(q, k, v, mask, dropout_p, attn_bias) -> float:
    """Check the arguments of :func:`scaled_dot_product_attention`; return ``dropout_p``."""
    for name, x in (("q", q), ("k", k), ("v", v)):
        require_tensor(name, x, min_ndim=2, floating=True)
    dropout_p = require_probability("dropout_p", dropout_p)
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
    scores_shape = q.shape[:-1] + k.shape[-2:-1]  # (..., L_q, L_k)
    _require_bias(attn_bias, scores_shape)
    if mask is not None:
        require_tensor("mask", mask, boolean=True)
        _require_broadcasts_into("mask", mask, scores_shape)
    return dropout_p


def _require_bias(attn_bias: object, scores_shape: tuple[int, ...]) -> None:
    """Raise unless ``attn_bias`` is None or a float tensor that broadcasts to the scores."""
    if attn_bias is not None:
        require_tensor("attn_bias", attn_bias, floating=True)
        _require_broadcasts_into("attn_bias", attn_bias, scores_shape)


def _require_mask(mask: object, scores_shape: tuple[int, int, int, int]) -> None:
    """Raise unless ``mask`` is None or a boolean mask for scores ``(B, H, L_q, L_k)`` that
    cannot be misread (a key-padding ``(B, L_k)`` taken for ``(L_q, L_k)``, or a 3-D mask)."""
    if mask is None:
        return
    require_tensor("mask", mask, boolean=True)
    batch, _, len_q, len_k = scores_shape
    if _ambiguous_2d(mask, batch, len_q, len_k):
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
    _require_broadcasts_into("mask", mask, torch.Size(scores_shape))


def _require_broadcasts_into(name: str, extra: torch.Tensor, scores_shape: torch.Size) -> None:
    """Raise unless ``extra`` broadcasts to ``scores_shape`` without enlarging it."""
    if not fits_into(tuple(extra.shape), tuple(scores_shape)):
        raise ValueError(
            f"{name} of shape {tuple(extra.shape)} does not broadcast to the attention scores "
            f"of shape {tuple(scores_shape)} (..., L_q, L_k) without enlarging them"
        )


def _ambiguous_2d(mask: torch.Tensor, batch: int, len_q: int, len_k: int) -> bool:
    """A 2-D mask that may be (B, L_k) key padding read as (L_q, L_k): B == L_q, not causal."""
    if mask.ndim != 2 or batch != len_q or batch == 1 or mask.shape != (batch, len_k):
        return False
    return not torch.equal(mask, causal_mask(len_q).to(mask.device)[:, :len_k])
