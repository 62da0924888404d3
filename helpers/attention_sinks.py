"""Learned attention sinks, sliding windows and chunks: the masks and the softmax of the
2025-2026 models (notebook 18).

GPT-OSS gives each head ``h`` one learned logit ``s_h``: it is concatenated to every row of
scores as an extra column, the softmax runs over ``L_k + 1`` entries, and the column is dropped
after the softmax (``GptOssAttention.sinks``, ``eager_attention_forward``). The column has no
value vector, so its share of the probability is mass that goes *nowhere*: the row's weights
on the real keys sum to ``1 - p_sink < 1``. Written out, it is one more term in the softmax's
denominator:

    w_ij = exp(a_ij) / (exp(s_h) + sum_j' exp(a_ij'))

(:func:`sink_attention` computes the column form, ``method="denominator"`` the formula; they
are equal.) StreamingLLM's sinks (notebook 17) are instead real *tokens* kept in the cache: they
have keys and values, so their mass does reach the output.

Masks follow the course's convention (True = may attend) and ``transformers``' rules:
:func:`sliding_window_mask` lets query ``i`` see keys ``i - window < j <= i`` (``window``
keys, itself included); :func:`chunked_mask` (Llama 4's ``attention_chunk_size``) lets it see
the keys ``j <= i`` of its own chunk, ``j // chunk == i // chunk``.
"""

from __future__ import annotations

import math

import torch

from ._checks import require_choice, require_int, require_tensor

__all__ = ["sink_attention", "sliding_window_mask", "chunked_mask"]

SINK_METHODS = ("column", "denominator")


def sliding_window_mask(seq_len: int, window: int) -> torch.Tensor:
    """Boolean ``(seq_len, seq_len)``: query ``i`` sees keys ``j`` with ``i - window < j <= i``.

    ``window`` keys at most, the query's own included: ``transformers``' ``sliding_window``
    (Cohere2, Gemma 3/4, GPT-OSS). ``window >= seq_len`` gives the causal mask. Used in notebook 18.
    """
    seq_len = require_int("seq_len", seq_len, minimum=1)
    window = require_int("window", window, minimum=1)
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    return (j <= i) & (j > i - window)


def chunked_mask(seq_len: int, chunk: int) -> torch.Tensor:
    """Boolean ``(seq_len, seq_len)``: query ``i`` sees keys ``j <= i`` in its own chunk.

    Chunks are ``[0, chunk)``, ``[chunk, 2 chunk)``, ...: Llama 4's ``attention_chunk_size``
    on its rotary layers. Unlike a sliding window, the first query of a chunk sees only itself.
    Used by :class:`~helpers.transformer.per_layer.PerLayerAttention` for chunked layers
    (notebook 18).
    """
    seq_len = require_int("seq_len", seq_len, minimum=1)
    chunk = require_int("chunk", chunk, minimum=1)
    i = torch.arange(seq_len)[:, None]
    j = torch.arange(seq_len)[None, :]
    return (j <= i) & (j // chunk == i // chunk)


def sink_attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    sinks: torch.Tensor,
    mask: torch.Tensor | None = None,
    scaling: float | None = None,
    method: str = "column",
) -> tuple[torch.Tensor, torch.Tensor]:
    """Attention with one learned sink logit per head (GPT-OSS).

    Shapes: ``q (batch, heads, L_q, d_k)``, ``k (batch, heads, L_k, d_k)``, ``v (batch, heads,
    L_k, d_v)``, ``sinks (heads,)``; ``mask`` boolean, broadcastable to ``(batch, heads, L_q,
    L_k)``, True = may attend. ``scaling`` multiplies the scores (default ``1/sqrt(d_k)``).
    ``method="column"``: the sink as an extra score column, softmax, column dropped (as GPT-OSS
    does); ``"denominator"``: ``exp(s_h)`` added to the softmax denominator (the formula).
    Returns ``(output (batch, heads, L_q, d_v), weights (batch, heads, L_q, L_k))``; each row of
    ``weights`` sums to ``1 - p_sink``. A row with every key masked puts all its mass on the
    sink: zero weights and a zero output. Used in notebook 18.
    """
    require_tensor("q", q, ndim=4, floating=True)
    require_tensor("k", k, ndim=4, floating=True)
    require_tensor("v", v, ndim=4, floating=True)
    require_tensor("sinks", sinks, ndim=1, floating=True)
    if k.shape[:2] != q.shape[:2] or v.shape[:3] != k.shape[:3] or k.shape[-1] != q.shape[-1]:
        raise ValueError(
            f"q, k, v must be (batch, heads, L, d) with the same batch and heads, k and v the "
            f"same L_k and q, k the same d_k; got q {tuple(q.shape)}, k {tuple(k.shape)}, "
            f"v {tuple(v.shape)}"
        )
    if sinks.shape[0] != q.shape[1]:
        raise ValueError(
            f"sinks must hold one logit per head: shape ({q.shape[1]},), got {tuple(sinks.shape)}"
        )
    method = require_choice("method", method, SINK_METHODS)
    if scaling is None:
        scaling = 1.0 / math.sqrt(q.shape[-1])
    elif isinstance(scaling, bool) or not isinstance(scaling, (int, float)):
        raise TypeError(f"scaling must be a real number or None, got {scaling!r}")
    scores = (q @ k.transpose(-2, -1)) * scaling  # (batch, heads, L_q, L_k)
    if mask is not None:
        require_tensor("mask", mask)
        if mask.dtype != torch.bool:
            raise TypeError(f"mask must be a boolean tensor (True = may attend), got {mask.dtype}")
        scores = scores.masked_fill(~mask, float("-inf"))
    sink = sinks.to(scores.dtype).reshape(1, -1, 1, 1)  # (1, heads, 1, 1)
    if method == "column":
        column = sink.expand(*scores.shape[:-1], 1)  # (batch, heads, L_q, 1)
        combined = torch.cat((scores, column), dim=-1)  # (batch, heads, L_q, L_k + 1)
        combined = combined - combined.amax(dim=-1, keepdim=True)
        weights = torch.softmax(combined, dim=-1)[..., :-1]  # drop the sink AFTER the softmax
    else:
        top = torch.maximum(scores.amax(dim=-1, keepdim=True), sink)  # for stability only
        numerators = torch.exp(scores - top)  # exp(-inf) = 0 for masked keys
        denominator = torch.exp(sink - top) + numerators.sum(dim=-1, keepdim=True)
        weights = numerators / denominator
    return weights @ v, weights
