"""Relative position representations, Shaw, Uszkoreit and Vaswani (2018), section 3.

Instead of giving each *token* a position, Shaw et al. give each *pair* (query ``i``, key ``j``)
a learned vector that depends only on the clipped offset
``clip(j - i, -max_distance, max_distance)``: one vector per offset, ``2 * max_distance + 1``
of them, shared by every head and every sequence. Inside attention (their equations 4 and 3):

    e_ij = q_i . (k_j + a^K_ij) / sqrt(d_k)        the score term  q_i . a^K_ij
    z_i  = sum_j alpha_ij (v_j + a^V_ij)           the value term  sum_j alpha_ij a^V_ij

Offsets beyond ``max_distance`` share the last vector, so a model trained on short inputs has
already seen every vector it will ever use on long ones.

T5 (Raffel et al. 2020, section 2.1) keeps one learned *scalar* per head instead of a vector,
and groups the offsets into buckets: exact for small distances, logarithmically wider up to
``max_distance``, one shared bucket beyond (:func:`t5_relative_buckets`).

Two ways to compute each term, equal up to rounding (the tests check both against a double loop):

- with the full table ``a`` of shape ``(L_q, L_k, d_k)`` and an ``einsum``
  (:func:`relative_scores`, :func:`relative_values`), as the paper describes;
- without building the table (:meth:`RelativePositionalEmbedding.scores` and ``.values``):
  dot each query with the ``2 * max_distance + 1`` vectors once, then pick the right one per
  key with a gather (and the reverse, a scatter-add, for the values). Memory ``O(L^2)`` instead
  of ``O(L^2 d_k)``.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .._checks import require_bool, require_int, require_same_dtype, require_tensor
from .base import PositionalAttention

__all__ = [
    "relative_positions",
    "t5_relative_buckets",
    "relative_scores",
    "relative_values",
    "RelativePositionalEmbedding",
    "RelativePositionalAttention",
]


def relative_positions(
    len_q: int, len_k: int, max_distance: int, device: torch.device | str | None = None
) -> torch.Tensor:
    """Table of clipped offsets ``clip(j - i, -max_distance, max_distance)``.

    Query ``i`` and key ``j`` both count from 0. Returns a ``torch.long`` tensor of shape
    ``(len_q, len_k)``; add ``max_distance`` to get row indices into the
    ``2 * max_distance + 1`` learned vectors.
    Derived in notebook 11.
    """
    len_q = require_int("len_q", len_q, minimum=1)
    len_k = require_int("len_k", len_k, minimum=1)
    max_distance = require_int("max_distance", max_distance, minimum=0)
    i = torch.arange(len_q, device=device)[:, None]  # (L_q, 1)
    j = torch.arange(len_k, device=device)[None, :]  # (1, L_k)
    return (j - i).clamp(-max_distance, max_distance)  # (L_q, L_k)


def _log_bucket_starts(exact: int, num_log: int, max_distance: int) -> list[int]:
    """Smallest distance of each logarithmic bucket after the first, in exact integer arithmetic.

    A distance ``r >= exact`` goes to log bucket ``j = floor(num_log * log(r / exact) /
    log(max_distance / exact))``; raising both sides to powers turns ``j' <= that`` into
    ``r**num_log * exact**j' >= max_distance**j' * exact**num_log``, which integers decide
    exactly, so no rounding can move a distance that sits on a boundary (16, 32, 64 for T5's
    defaults) into the bucket below.
    """
    starts = []
    r = exact
    for j in range(1, num_log):
        while r**num_log * exact**j < max_distance**j * exact**num_log:
            r += 1
        starts.append(r)
    return starts


def t5_relative_buckets(
    offsets: torch.Tensor,
    bidirectional: bool = True,
    num_buckets: int = 32,
    max_distance: int = 128,
) -> torch.Tensor:
    """T5's bucket of every offset ``n - m`` (key minus query, the sign of
    :func:`relative_positions`): Raffel et al. (2020), section 2.1; the Mesh TensorFlow rule.

    ``bidirectional`` (encoder): half of the buckets for keys at or before the query
    (offsets <= 0), half for keys after it (offsets > 0, from bucket ``num_buckets // 2``).
    Causal (decoder): all buckets for looking back; offsets > 0 share bucket 0 (the mask hides
    them). Within each half of ``n`` buckets, distances ``0 .. n/2 - 1`` get a bucket each; larger
    ones share ``n/2`` buckets whose widths grow logarithmically up to ``max_distance``; every
    distance from ``max_distance`` on shares the last bucket.
    ``offsets``: an integer tensor of any shape; returns ``torch.long`` buckets of its shape,
    in ``0 .. num_buckets - 1``. Equal to ``transformers``' ``T5Attention._relative_position_bucket``
    (checked in the tests), computed without floating point. Derived in notebook 11.
    """
    require_tensor("offsets", offsets, integer=True)
    require_bool("bidirectional", bidirectional)
    num_buckets = require_int("num_buckets", num_buckets, minimum=4 if bidirectional else 2)
    per_side = num_buckets // 2 if bidirectional else num_buckets  # buckets for one direction
    exact = per_side // 2  # distances 0 .. exact - 1 have a bucket each
    max_distance = require_int("max_distance", max_distance, minimum=exact + 1)
    offsets = offsets.long()
    if bidirectional:
        side = (offsets > 0).long() * per_side  # keys after the query: the upper half
        distance = offsets.abs()
    else:
        side = torch.zeros_like(offsets)
        distance = (-offsets).clamp(min=0)  # how far back; keys ahead count as distance 0
    starts = torch.tensor(
        _log_bucket_starts(exact, per_side - exact, max_distance), device=offsets.device
    )
    log_bucket = exact + torch.bucketize(distance, starts, right=True)  # capped at per_side - 1
    return side + torch.where(distance < exact, distance, log_bucket)


def _require_table(a: torch.Tensor, len_q: int, len_k: int | None = None) -> None:
    require_tensor("a", a, ndim=3, floating=True)
    if a.shape[0] != len_q or (len_k is not None and a.shape[1] != len_k):
        want = f"({len_q}, {'L_k' if len_k is None else len_k}, d)"
        raise ValueError(f"a must have shape (L_q, L_k, d) = {want}, got {tuple(a.shape)}")


def relative_scores(q: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """Score term ``q_i . a_ij`` for every query ``i`` and key ``j``.

    ``q``: ``(..., L_q, d_k)``; ``a``: ``(L_q, L_k, d_k)``. Returns ``(..., L_q, L_k)``
    (not yet divided by ``sqrt(d_k)``).
    The score term of :class:`RelativePositionalAttention`, derived in notebook 11 (by hand
    there).
    """
    require_tensor("q", q, min_ndim=2, floating=True)
    _require_table(a, q.shape[-2])
    require_same_dtype("q", q, "a", a)
    if a.shape[-1] != q.shape[-1]:
        raise ValueError(f"a and q must share d_k, got a {tuple(a.shape)} and q {tuple(q.shape)}")
    return torch.einsum("...id,ijd->...ij", q, a)


def relative_values(weights: torch.Tensor, a: torch.Tensor) -> torch.Tensor:
    """Value term ``sum_j weights_ij a_ij`` for every query ``i``.

    ``weights``: attention weights ``(..., L_q, L_k)``; ``a``: ``(L_q, L_k, d_v)``.
    Returns ``(..., L_q, d_v)``, to be added to ``weights @ v``.
    The value term of :class:`RelativePositionalAttention`, derived in notebook 11.
    """
    require_tensor("weights", weights, min_ndim=2, floating=True)
    _require_table(a, weights.shape[-2], weights.shape[-1])
    require_same_dtype("weights", weights, "a", a)
    return torch.einsum("...ij,ijd->...id", weights, a)


class RelativePositionalEmbedding(nn.Module):
    """``2 * max_distance + 1`` learned vectors of width ``d_k``, one per clipped offset.

    ``weight[r]`` is the vector for offset ``r - max_distance``. ``forward(len_q, len_k)`` returns
    the table ``a (L_q, L_k, d_k)``; :meth:`scores` and :meth:`values` compute the two
    attention terms without building it.
    Derived in notebook 11.
    """

    def __init__(self, max_distance: int, d_k: int):
        super().__init__()
        self.max_distance = require_int("max_distance", max_distance, minimum=0)
        self.d_k = require_int("d_k", d_k, minimum=1)
        # Small at initialisation: the model starts close to content-only attention.
        self.weight = nn.Parameter(torch.randn(2 * self.max_distance + 1, self.d_k) * 0.02)

    def extra_repr(self) -> str:
        return f"max_distance={self.max_distance}, d_k={self.d_k}"

    def _index(self, len_q: int, len_k: int, query_offset: int = 0) -> torch.Tensor:
        """Rows of ``self.weight`` for queries at ``query_offset .. query_offset + L_q - 1``
        (later than 0 when earlier keys come from a cache) and keys at ``0 .. L_k - 1``."""
        query_offset = require_int("query_offset", query_offset, minimum=0)
        offsets = relative_positions(
            query_offset + len_q, len_k, self.max_distance, device=self.weight.device
        )[query_offset:]  # (L_q, L_k)
        return offsets + self.max_distance  # (L_q, L_k), rows of self.weight

    def forward(self, len_q: int, len_k: int) -> torch.Tensor:
        """The table ``a[i, j] = weight[clip(j - i) + max_distance]``, shape ``(L_q, L_k, d_k)``."""
        return self.weight[self._index(len_q, len_k)]

    def scores(self, q: torch.Tensor, len_k: int, query_offset: int = 0) -> torch.Tensor:
        """Score term ``q_i . a_ij`` for ``q (..., L_q, d_k)`` and ``len_k`` keys: ``(..., L_q, L_k)``.

        ``query_offset``: the position of the first query (incremental decoding, notebook 15).
        """
        require_tensor("q", q, min_ndim=2, floating=True)
        if q.shape[-1] != self.d_k:
            raise ValueError(
                f"q must have last dimension d_k={self.d_k}, got shape {tuple(q.shape)}"
            )
        require_same_dtype("q", q, "the embedding's weight", self.weight)
        per_offset = q @ self.weight.T  # (..., L_q, 2 * max_distance + 1)
        index = self._index(q.shape[-2], len_k, query_offset)  # (L_q, L_k)
        index = index.expand(*q.shape[:-1], len_k)  # (..., L_q, L_k)
        return per_offset.gather(-1, index)

    def values(self, weights: torch.Tensor, query_offset: int = 0) -> torch.Tensor:
        """Value term ``sum_j weights_ij a_ij`` for ``weights (..., L_q, L_k)``: ``(..., L_q, d_k)``.

        ``query_offset``: the position of the first query, as in :meth:`scores`.
        """
        require_tensor("weights", weights, min_ndim=2, floating=True)
        index = self._index(*weights.shape[-2:], query_offset).expand_as(weights)  # (..., L_q, L_k)
        # Sum the weights of the keys that share an offset, then mix the offset vectors.
        per_offset = weights.new_zeros(*weights.shape[:-1], 2 * self.max_distance + 1)
        per_offset = per_offset.scatter_add(-1, index, weights)  # (..., L_q, 2 * max_distance + 1)
        return per_offset @ self.weight  # (..., L_q, d_k)


class RelativePositionalAttention(PositionalAttention):
    """Shaw et al.'s relative representations inside attention: learned vectors ``a^K`` for
    the clipped offsets ``clip(j - i, -max_distance, max_distance)``, shared by all heads, whose
    term ``q_i . a^K_ij / sqrt(d_k)`` joins the scores; with ``values=True`` a second table
    ``a^V`` adds ``sum_j alpha_ij a^V_ij`` to each head's output.

    What ``MultiHeadAttention(position=...)`` and the models' ``positional="relative"`` build
    (the models: keys only, ``max_distance=relative_max_distance``). Derived in notebook 11.
    """

    def __init__(self, d_k: int, max_distance: int = 16, values: bool = False) -> None:
        super().__init__()
        require_bool("values", values)
        self.keys = RelativePositionalEmbedding(max_distance, d_k)  # checks max_distance, d_k
        self.d_k = self.keys.d_k
        self.values = RelativePositionalEmbedding(max_distance, d_k) if values else None

    @property
    def needs_weights(self) -> bool:
        return self.values is not None

    def score_bias(self, q: torch.Tensor, len_k: int, offset: int) -> torch.Tensor:
        # attention adds its bias after dividing q . k by sqrt(d_k): scale the term the same way
        return self.keys.scores(q, len_k, offset) / math.sqrt(self.d_k)  # (B, H, L_q, L_k)

    def value_term(self, weights: torch.Tensor, offset: int) -> torch.Tensor:
        return self.values.values(weights, offset)  # (B, H, L_q, d_k)
