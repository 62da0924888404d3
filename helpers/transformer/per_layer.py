"""Position chosen per layer: one attention layer for every 2025-2026 rule, and a toy decoder
whose layers take their position from their type (notebook 18).

:class:`PerLayerAttention` is one attention layer whose position is whatever its arguments say:
rotary with given frequencies in either layout, or none (NoPE); a sliding window or a chunk, or
global; Llama 4's query temperature; GPT-OSS's learned sinks; and optional per-head norms
(Gemma's ``q_norm``/``k_norm``/``v_norm``, Llama 4's L2 norm), which are not position but sit
between the projections and the rotation. Given the weights of ``transformers``' own layers it
computes the same outputs (tests: Cohere2, Llama 4, Gemma 4, GPT-OSS).

The course's own models take the same rules from their configuration:
:class:`~helpers.transformer.TransformerConfig` spells a model's position the way
``transformers`` does, ``layer_types`` (one of :data:`LAYER_TYPES` per layer) and
``rope_parameters`` nested by layer type (``None`` for a NoPE layer type), read with
:func:`layer_frequencies`; :class:`~helpers.transformer.DecoderOnlyTransformer` builds notebook
18's toy from it.
"""

from __future__ import annotations

from collections.abc import Mapping

import torch
from torch import nn

from .._checks import require_choice, require_int, require_positive_float, require_tensor
from ..attention_sinks import chunked_mask, sink_attention, sliding_window_mask
from ..encodings.per_layer import llama4_attention_temperature, proportional_frequencies
from ..encodings.rotary import ROTARY_LAYOUTS, apply_rotary, rotary_frequencies

__all__ = ["LAYER_TYPES", "PerLayerAttention", "layer_frequencies"]

LAYER_TYPES = ("sliding_attention", "chunked_attention", "full_attention")
_ROPE_TYPES = ("default", "proportional")


class PerLayerAttention(nn.Module):
    """Causal multi-head attention with its position set per layer.

    ``d_model``: input width; ``num_heads`` query heads of width ``head_dim``, sharing
    ``num_kv_heads`` key/value heads (grouped-query attention; default ``num_heads``).
    ``frequencies``: the rotary ``omega_k``, shape ``(head_dim/2,)`` (zeros allowed: pairs not
    turned), or ``None`` for no position at all (NoPE). ``layout``: ``"half"`` (Gemma,
    GPT-OSS) or ``"interleaved"`` (Cohere2, Llama 4, DeepSeek). ``rotary_scale``: a factor on
    the rotated queries and keys (YaRN's ``attention_factor``). ``window`` (sliding) or
    ``chunk`` (Llama 4), at most one. ``temperature``: ``(floor_scale, attn_scale)`` for
    Llama 4's query temperature. ``sinks``: one learned logit per head (GPT-OSS). ``scaling``:
    the score factor (default ``head_dim**-0.5``; Gemma 4 uses 1). ``q_norm``, ``k_norm``,
    ``v_norm``: modules applied to each head before the rotation. ``bias``: biases on the
    projections. Input ``(batch, L, d_model)``, output ``(batch, L, d_model)``. Used in notebook 18.
    """

    def __init__(
        self,
        d_model: int,
        num_heads: int,
        head_dim: int,
        *,
        num_kv_heads: int | None = None,
        frequencies: torch.Tensor | None = None,
        layout: str = "half",
        rotary_scale: float = 1.0,
        window: int | None = None,
        chunk: int | None = None,
        temperature: tuple[float, float] | None = None,
        sinks: bool = False,
        scaling: float | None = None,
        q_norm: nn.Module | None = None,
        k_norm: nn.Module | None = None,
        v_norm: nn.Module | None = None,
        bias: bool = False,
    ) -> None:
        super().__init__()
        self.d_model = require_int("d_model", d_model, minimum=1)
        self.num_heads = require_int("num_heads", num_heads, minimum=1)
        self.head_dim = require_int("head_dim", head_dim, minimum=2)
        num_kv_heads = num_heads if num_kv_heads is None else num_kv_heads
        self.num_kv_heads = require_int("num_kv_heads", num_kv_heads, minimum=1)
        if num_heads % num_kv_heads:
            raise ValueError(
                f"num_heads={num_heads} must be a multiple of num_kv_heads={num_kv_heads} "
                "(each key/value head serves the same number of query heads)"
            )
        if frequencies is not None:
            require_tensor("frequencies", frequencies, ndim=1, floating=True)
            if head_dim % 2 or frequencies.shape[0] != head_dim // 2:
                raise ValueError(
                    f"frequencies must have shape (head_dim/2,) = ({head_dim // 2},) with "
                    f"head_dim even, got {tuple(frequencies.shape)} for head_dim={head_dim}"
                )
            frequencies = frequencies.double()
        self.register_buffer("frequencies", frequencies, persistent=False)
        self.layout = require_choice("layout", layout, ROTARY_LAYOUTS)
        self.rotary_scale = require_positive_float("rotary_scale", rotary_scale)
        if window is not None and chunk is not None:
            raise ValueError(f"give a window or a chunk, not both: window={window}, chunk={chunk}")
        self.window = None if window is None else require_int("window", window, minimum=1)
        self.chunk = None if chunk is None else require_int("chunk", chunk, minimum=1)
        if temperature is not None:
            if not (isinstance(temperature, tuple) and len(temperature) == 2):
                raise TypeError(
                    f"temperature must be a (floor_scale, attn_scale) pair, got {temperature!r}"
                )
            temperature = (
                require_positive_float("temperature[0] (floor_scale)", temperature[0]),
                require_positive_float("temperature[1] (attn_scale)", temperature[1]),
            )
        self.temperature = temperature
        if scaling is None:
            scaling = head_dim**-0.5
        self.scaling = require_positive_float("scaling", scaling)
        for name, module in (("q_norm", q_norm), ("k_norm", k_norm), ("v_norm", v_norm)):
            if module is not None and not isinstance(module, nn.Module):
                raise TypeError(f"{name} must be a torch.nn.Module or None, got {module!r}")
        self.q_norm, self.k_norm, self.v_norm = q_norm, k_norm, v_norm
        self.q_proj = nn.Linear(d_model, num_heads * head_dim, bias=bias)
        self.k_proj = nn.Linear(d_model, self.num_kv_heads * head_dim, bias=bias)
        self.v_proj = nn.Linear(d_model, self.num_kv_heads * head_dim, bias=bias)
        self.o_proj = nn.Linear(num_heads * head_dim, d_model, bias=bias)
        self.sinks = nn.Parameter(torch.zeros(num_heads)) if sinks else None

    def mask(self, seq_len: int) -> torch.Tensor:
        """The boolean ``(seq_len, seq_len)`` mask this layer uses (True = may attend)."""
        if self.window is not None:
            return sliding_window_mask(seq_len, self.window)
        if self.chunk is not None:
            return chunked_mask(seq_len, self.chunk)
        return sliding_window_mask(seq_len, seq_len)  # causal

    def forward(self, x: torch.Tensor, positions: torch.Tensor | None = None) -> torch.Tensor:
        require_tensor("x", x, ndim=3, floating=True)
        if x.shape[-1] != self.d_model:
            raise ValueError(f"x must be (batch, L, {self.d_model}), got {tuple(x.shape)}")
        batch, seq_len, _ = x.shape
        if positions is None:
            positions = torch.arange(seq_len, device=x.device)
        q = self.q_proj(x).view(batch, seq_len, self.num_heads, self.head_dim)
        k = self.k_proj(x).view(batch, seq_len, self.num_kv_heads, self.head_dim)
        v = self.v_proj(x).view(batch, seq_len, self.num_kv_heads, self.head_dim)
        q, k, v = (t.transpose(1, 2) for t in (q, k, v))  # (batch, heads, L, head_dim)
        if self.q_norm is not None:
            q = self.q_norm(q)
        if self.k_norm is not None:
            k = self.k_norm(k)
        if self.v_norm is not None:
            v = self.v_norm(v)
        if self.frequencies is not None:  # rotary; NoPE layers skip this
            q = apply_rotary(q, positions, layout=self.layout, frequencies=self.frequencies)
            k = apply_rotary(k, positions, layout=self.layout, frequencies=self.frequencies)
            q, k = q * self.rotary_scale, k * self.rotary_scale
        if self.temperature is not None:  # Llama 4: queries scaled by position
            tau = llama4_attention_temperature(positions, *self.temperature)  # (L,)
            q = q * tau.to(q.dtype)[:, None]
        groups = self.num_heads // self.num_kv_heads
        k = k.repeat_interleave(groups, dim=1)  # (batch, num_heads, L, head_dim)
        v = v.repeat_interleave(groups, dim=1)
        mask = self.mask(seq_len).to(x.device)
        if self.sinks is not None:
            out, _ = sink_attention(q, k, v, self.sinks, mask, scaling=self.scaling)
        else:
            scores = (q @ k.transpose(-2, -1)) * self.scaling  # (batch, heads, L, L)
            weights = torch.softmax(scores.masked_fill(~mask, float("-inf")), dim=-1)
            out = weights @ v  # (batch, heads, L, head_dim)
        out = out.transpose(1, 2).reshape(batch, seq_len, self.num_heads * self.head_dim)
        return self.o_proj(out)


def layer_frequencies(rope_parameters: Mapping | None, head_dim: int) -> torch.Tensor | None:
    """The ``(head_dim/2,)`` rotary frequencies one layer type's ``rope_parameters`` asks for.

    ``None`` -> ``None`` (NoPE). ``{"rope_type": "default", "rope_theta": b}`` ->
    ``b**(-2k/head_dim)``; ``{"rope_type": "proportional", "rope_theta": b,
    "partial_rotary_factor": p}`` -> :func:`proportional_frequencies`. Used in notebook 18.
    """
    head_dim = require_int("head_dim", head_dim, minimum=2)
    if rope_parameters is None:
        return None
    if not isinstance(rope_parameters, Mapping):
        raise TypeError(f"rope_parameters must be a mapping or None, got {rope_parameters!r}")
    rope_type = require_choice(
        "rope_parameters['rope_type']", rope_parameters.get("rope_type", "default"), _ROPE_TYPES
    )
    base = rope_parameters.get("rope_theta", 10000.0)
    if rope_type == "default":
        return rotary_frequencies(head_dim, base)
    return proportional_frequencies(
        head_dim, rope_parameters.get("partial_rotary_factor", 1.0), base
    )
