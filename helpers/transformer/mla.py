"""Multi-head latent attention with decoupled rotary (DeepSeek-V2/V3), and what caches cost per
token (notebook 18).

Multi-head latent attention stores one small *latent* ``c_t = norm(W_dkv x_t)`` per token
(``kv_lora_rank`` numbers, 512 in DeepSeek-V3) and rebuilds every head's key and value from it:
``k_h = W_uk,h c_t``, ``v_h = W_uv,h c_t``. Without position, the key's up-projection can be
*absorbed* into the query: ``q_h . (W_uk,h c_t) = (W_uk,h^T q_h) . c_t``, so attention runs on
the latents directly. Rotary breaks that: ``R(t_q) q . R(t_k) W_uk c = q . R(t_k - t_q) W_uk c``,
and ``R(t_k - t_q)`` sits between the query and ``W_uk``: no fixed matrix can be absorbed.

DeepSeek's way out ("decoupled rotary", DeepSeek-AI 2024, DeepSeek-V2 report, section 2.1.3):
split every query and key into a *no-position* part (``qk_nope_head_dim = 128``, absorbed as
above) and a small *rotary* part (``qk_rope_head_dim = 64``). The rotary key is computed once
from ``x_t`` and shared by all heads, so the cache holds per token and layer only the latent
plus that key: ``kv_lora_rank + qk_rope_head_dim`` numbers (576), against ``2 * num_heads *
head_dim`` for multi-head attention. :func:`kv_cache_bytes_per_token` and
:func:`mla_cache_bytes_per_token` count them.

DeepSeek-V3's weights lay the rotary slice out in interleaved pairs (``rope_interleave=True``
in ``transformers``); with YaRN (factor 40) its ``mscale_all_dim`` also multiplies the softmax
scale by ``(0.1 * mscale_all_dim * ln(factor) + 1) ** 2``. :class:`DecoupledRotaryMLA` does all of
it and equals ``DeepseekV3Attention`` given the same weights (tests).
"""

from __future__ import annotations

import math

import torch
from torch import nn

from .._checks import require_choice, require_int, require_positive_float, require_tensor
from ..encodings.rotary import ROTARY_LAYOUTS, apply_rotary, rotary_frequencies

__all__ = [
    "DecoupledRotaryMLA",
    "kv_cache_bytes_per_token",
    "mla_cache_bytes_per_token",
    "yarn_softmax_scale",
]


def yarn_softmax_scale(head_dim: int, factor: float, mscale_all_dim: float) -> float:
    """DeepSeek's softmax scale under YaRN: ``head_dim**-0.5 * m**2`` with ``m = 0.1 *
    mscale_all_dim * ln(factor) + 1`` (``m = 1`` when ``factor <= 1`` or ``mscale_all_dim``
    is 0). ``head_dim`` is the full query/key width (no-position plus rotary part, 192 in
    DeepSeek-V3). Equals ``transformers``' ``yarn_apply_mscale``. Used in notebook 18.
    """
    head_dim = require_int("head_dim", head_dim, minimum=1)
    factor = require_positive_float("factor", factor)
    if isinstance(mscale_all_dim, bool) or not isinstance(mscale_all_dim, (int, float)):
        raise TypeError(f"mscale_all_dim must be a real number >= 0, got {mscale_all_dim!r}")
    if not mscale_all_dim >= 0:
        raise ValueError(f"mscale_all_dim must be >= 0, got {mscale_all_dim!r}")
    m = 1.0 if factor <= 1 or mscale_all_dim == 0 else 0.1 * mscale_all_dim * math.log(factor) + 1.0
    return head_dim**-0.5 * m * m


def kv_cache_bytes_per_token(
    num_layers: int,
    num_kv_heads: int,
    k_dim: int,
    v_dim: int | None = None,
    bytes_per_value: int = 2,
) -> int:
    """Bytes a multi-head (``num_kv_heads = num_heads``) or grouped-query cache stores per token:
    ``num_layers * num_kv_heads * (k_dim + v_dim) * bytes_per_value`` (``v_dim`` defaults to
    ``k_dim``; 2 bytes for BF16). Used in notebook 18.
    """
    num_layers = require_int("num_layers", num_layers, minimum=1)
    num_kv_heads = require_int("num_kv_heads", num_kv_heads, minimum=1)
    k_dim = require_int("k_dim", k_dim, minimum=1)
    v_dim = k_dim if v_dim is None else require_int("v_dim", v_dim, minimum=1)
    bytes_per_value = require_int("bytes_per_value", bytes_per_value, minimum=1)
    return num_layers * num_kv_heads * (k_dim + v_dim) * bytes_per_value


def mla_cache_bytes_per_token(
    num_layers: int, kv_lora_rank: int, qk_rope_head_dim: int, bytes_per_value: int = 2
) -> int:
    """Bytes multi-head latent attention stores per token: the latent and the one shared
    rotary key, ``num_layers * (kv_lora_rank + qk_rope_head_dim) * bytes_per_value``, whatever
    the number of heads. Used in notebook 18.
    """
    num_layers = require_int("num_layers", num_layers, minimum=1)
    kv_lora_rank = require_int("kv_lora_rank", kv_lora_rank, minimum=1)
    qk_rope_head_dim = require_int("qk_rope_head_dim", qk_rope_head_dim, minimum=0)
    bytes_per_value = require_int("bytes_per_value", bytes_per_value, minimum=1)
    return num_layers * (kv_lora_rank + qk_rope_head_dim) * bytes_per_value


class DecoupledRotaryMLA(nn.Module):
    """Multi-head latent attention with a decoupled, shared rotary key (DeepSeek-V2/V3).

    ``d_model`` in; ``num_heads`` heads whose queries and keys have ``qk_nope_head_dim``
    features without position followed by ``qk_rope_head_dim`` rotated ones, and values of
    ``v_head_dim``. ``kv_lora_rank``: the cached latent's width; ``q_lora_rank``: a low-rank
    query path (``None``: one projection). ``layout``: how the rotary slice's pairs are laid
    out in the weights (``"interleaved"`` = ``rope_interleave=True``). ``frequencies``: the
    ``(qk_rope_head_dim/2,)`` rotary ``omega_k`` (default ``base**(-2k/qk_rope_head_dim)``).
    ``scaling``: the softmax scale (default ``(qk_nope + qk_rope)**-0.5``; see
    :func:`yarn_softmax_scale`). Causal. ``(batch, L, d_model) -> (batch, L, d_model)``.
    Used in notebook 18.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        *,
        kv_lora_rank: int,
        qk_nope_head_dim: int,
        qk_rope_head_dim: int,
        v_head_dim: int,
        q_lora_rank: int | None = None,
        layout: str = "interleaved",
        base: float = 10000.0,
        frequencies: torch.Tensor | None = None,
        scaling: float | None = None,
        eps: float = 1e-6,
    ) -> None:
        super().__init__()
        self.d_model = require_int("d_model", d_model, minimum=1)
        self.num_heads = require_int("num_heads", num_heads, minimum=1)
        self.kv_lora_rank = require_int("kv_lora_rank", kv_lora_rank, minimum=1)
        self.qk_nope_head_dim = require_int("qk_nope_head_dim", qk_nope_head_dim, minimum=1)
        self.qk_rope_head_dim = require_int("qk_rope_head_dim", qk_rope_head_dim, minimum=2)
        if qk_rope_head_dim % 2:
            raise ValueError(f"qk_rope_head_dim must be even (pairs), got {qk_rope_head_dim}")
        self.v_head_dim = require_int("v_head_dim", v_head_dim, minimum=1)
        self.layout = require_choice("layout", layout, ROTARY_LAYOUTS)
        if frequencies is None:
            frequencies = rotary_frequencies(qk_rope_head_dim, base)
        require_tensor("frequencies", frequencies, ndim=1, floating=True)
        if frequencies.shape[0] != qk_rope_head_dim // 2:
            raise ValueError(
                f"frequencies must have shape (qk_rope_head_dim/2,) = ({qk_rope_head_dim // 2},), "
                f"got {tuple(frequencies.shape)}"
            )
        self.register_buffer("frequencies", frequencies.double(), persistent=False)
        qk_head_dim = qk_nope_head_dim + qk_rope_head_dim
        self.scaling = require_positive_float(
            "scaling", qk_head_dim**-0.5 if scaling is None else scaling
        )
        if q_lora_rank is None:
            self.q_proj = nn.Linear(d_model, num_heads * qk_head_dim, bias=False)
        else:
            q_lora_rank = require_int("q_lora_rank", q_lora_rank, minimum=1)
            self.q_a_proj = nn.Linear(d_model, q_lora_rank, bias=False)
            self.q_a_layernorm = nn.RMSNorm(q_lora_rank, eps=eps)
            self.q_b_proj = nn.Linear(q_lora_rank, num_heads * qk_head_dim, bias=False)
        self.q_lora_rank = q_lora_rank
        # one projection gives the latent and the shared rotary key
        self.kv_a_proj_with_mqa = nn.Linear(d_model, kv_lora_rank + qk_rope_head_dim, bias=False)
        self.kv_a_layernorm = nn.RMSNorm(kv_lora_rank, eps=eps)
        self.kv_b_proj = nn.Linear(
            kv_lora_rank, num_heads * (qk_nope_head_dim + v_head_dim), bias=False
        )
        self.o_proj = nn.Linear(num_heads * v_head_dim, d_model, bias=False)

    def cache_entries(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """What the cache stores for the tokens of ``x (batch, L, d_model)``: the latent
        ``(batch, L, kv_lora_rank)`` and the rotated shared key ``(batch, L, qk_rope_head_dim)``."""
        require_tensor("x", x, ndim=3, floating=True)
        if x.shape[-1] != self.d_model:
            raise ValueError(f"x must be (batch, L, {self.d_model}), got {tuple(x.shape)}")
        latent, k_rot = self.kv_a_proj_with_mqa(x).split(
            [self.kv_lora_rank, self.qk_rope_head_dim], dim=-1
        )
        k_rot = apply_rotary(k_rot, layout=self.layout, frequencies=self.frequencies)
        return self.kv_a_layernorm(latent), k_rot

    def _queries(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch, seq_len, _ = x.shape
        if self.q_lora_rank is None:
            q = self.q_proj(x)
        else:
            q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(x)))
        q = q.view(batch, seq_len, self.num_heads, -1).transpose(1, 2)  # (B, H, L, qk_head_dim)
        q_nope, q_rot = q.split([self.qk_nope_head_dim, self.qk_rope_head_dim], dim=-1)
        return q_nope, apply_rotary(q_rot, layout=self.layout, frequencies=self.frequencies)

    def scores(self, x: torch.Tensor, absorbed: bool = False) -> torch.Tensor:
        """Pre-softmax scores ``(batch, heads, L, L)`` (scaled, not masked).

        ``absorbed=False``: keys rebuilt per head from the latent; ``absorbed=True``: the
        no-position part computed on the latents, ``(W_uk,h^T q_h) . c_t``, plus the rotary
        part ``q_rot . k_rot``: the same numbers, with no per-head key ever built.
        """
        latent, k_rot = self.cache_entries(x)  # (B, L, r), (B, L, d_rope)
        q_nope, q_rot = self._queries(x)  # (B, H, L, d_nope), (B, H, L, d_rope)
        rotary = q_rot @ k_rot[:, None].transpose(-2, -1)  # (B, H, L, L): one key for all heads
        w = self.kv_b_proj.weight.view(self.num_heads, self.qk_nope_head_dim + self.v_head_dim, -1)
        w_uk = w[:, : self.qk_nope_head_dim]  # (H, d_nope, r)
        if absorbed:
            q_latent = q_nope @ w_uk  # (B, H, L, r): W_uk^T q, once per query
            nope = q_latent @ latent[:, None].transpose(-2, -1)
        else:
            k_nope = torch.einsum("hdr,blr->bhld", w_uk, latent)  # (B, H, L, d_nope)
            nope = q_nope @ k_nope.transpose(-2, -1)
        return (nope + rotary) * self.scaling

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        batch, seq_len, _ = x.shape if isinstance(x, torch.Tensor) and x.ndim == 3 else (0, 0, 0)
        scores = self.scores(x)  # checks x
        causal = torch.ones(seq_len, seq_len, dtype=torch.bool, device=x.device).tril()
        weights = torch.softmax(scores.masked_fill(~causal, float("-inf")), dim=-1)
        latent, _ = self.cache_entries(x)
        w = self.kv_b_proj.weight.view(self.num_heads, self.qk_nope_head_dim + self.v_head_dim, -1)
        w_uv = w[:, self.qk_nope_head_dim :]  # (H, d_v, r)
        v = torch.einsum("hdr,blr->bhld", w_uv, latent)  # (B, H, L, d_v)
        out = (weights @ v).transpose(1, 2).reshape(batch, seq_len, -1)
        return self.o_proj(out)
