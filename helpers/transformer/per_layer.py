"""Position chosen per layer: one attention layer for every 2025-2026 rule, and a toy decoder
whose layers take their position from their type (notebook 18).

:class:`PerLayerAttention` is one attention layer whose position is whatever its arguments say:
rotary with given frequencies in either layout, or none (NoPE); a sliding window or a chunk, or
global; Llama 4's query temperature; GPT-OSS's learned sinks; and optional per-head norms
(Gemma's ``q_norm``/``k_norm``/``v_norm``, Llama 4's L2 norm), which are not position but sit
between the projections and the rotation. Given the weights of ``transformers``' own layers it
computes the same outputs (tests: Cohere2, Llama 4, Gemma 4, GPT-OSS).

:class:`PerLayerConfig` spells a model's position the way ``transformers`` does:
``layer_types`` (one of :data:`LAYER_TYPES` per layer) and ``rope_parameters`` nested by
layer type (``None`` for a NoPE layer type). :class:`PerLayerDecoder` builds the toy of notebook
18 from it. (These two fields are meant to move into :class:`~helpers.transformer.TransformerConfig`.)
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import torch
from torch import nn

from .._checks import require_choice, require_int, require_positive_float, require_tensor
from ..attention_sinks import chunked_mask, sink_attention, sliding_window_mask
from ..encodings.per_layer import llama4_attention_temperature, proportional_frequencies
from ..encodings.rotary import ROTARY_LAYOUTS, apply_rotary, rotary_frequencies

__all__ = [
    "LAYER_TYPES",
    "PerLayerAttention",
    "PerLayerConfig",
    "PerLayerDecoder",
    "layer_frequencies",
]

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


@dataclass
class PerLayerConfig:
    """A toy decoder's sizes and its position per layer type, spelled as ``transformers`` does.

    ``layer_types``: one of :data:`LAYER_TYPES` per layer. ``rope_parameters``: layer type ->
    ``{"rope_type", "rope_theta", "partial_rotary_factor"}`` or ``None`` (NoPE); every type
    used must be a key. ``sliding_window`` / ``attention_chunk_size``: the keys a sliding /
    chunked layer sees. ``attn_temperature_tuning``: Llama 4's query temperature on the NoPE
    layers, with ``floor_scale`` and ``attn_scale``. What each
    :class:`PerLayerAttention` is built from (notebook 18).
    """

    vocab_size: int
    layer_types: Sequence[str]
    rope_parameters: Mapping[str, Mapping | None]
    d_model: int = 32
    num_heads: int = 4
    d_ff: int = 64
    sliding_window: int = 8
    attention_chunk_size: int = 8
    attn_temperature_tuning: bool = False
    floor_scale: float = 8.0
    attn_scale: float = 0.1
    extra: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        require_int("vocab_size", self.vocab_size, minimum=1)
        if isinstance(self.layer_types, str) or not isinstance(self.layer_types, Sequence):
            raise TypeError(f"layer_types must be a list of strings, got {self.layer_types!r}")
        if not self.layer_types:
            raise ValueError("layer_types must name at least one layer")
        for i, kind in enumerate(self.layer_types):
            require_choice(f"layer_types[{i}]", kind, LAYER_TYPES)
            if kind not in self.rope_parameters:
                raise ValueError(
                    f"rope_parameters has no entry for layer type {kind!r} (layer {i}); give "
                    "its rotary parameters, or None for no position"
                )
        require_int("d_model", self.d_model, minimum=1)
        require_int("num_heads", self.num_heads, minimum=1)
        if self.d_model % self.num_heads or (self.d_model // self.num_heads) % 2:
            raise ValueError(
                f"d_model={self.d_model} must split into num_heads={self.num_heads} heads of "
                "even width"
            )
        require_int("sliding_window", self.sliding_window, minimum=1)
        require_int("attention_chunk_size", self.attention_chunk_size, minimum=1)

    @property
    def head_dim(self) -> int:
        return self.d_model // self.num_heads

    def attention(self, index: int) -> PerLayerAttention:
        """The attention layer ``index`` gets from its type."""
        kind = self.layer_types[
            require_int("index", index, minimum=0, maximum=len(self.layer_types) - 1)
        ]
        frequencies = layer_frequencies(self.rope_parameters[kind], self.head_dim)
        nope = frequencies is None
        return PerLayerAttention(
            self.d_model,
            self.num_heads,
            self.head_dim,
            frequencies=frequencies,
            window=self.sliding_window if kind == "sliding_attention" else None,
            chunk=self.attention_chunk_size if kind == "chunked_attention" else None,
            temperature=(self.floor_scale, self.attn_scale)
            if nope and self.attn_temperature_tuning
            else None,
        )


class _Layer(nn.Module):
    def __init__(self, config: PerLayerConfig, index: int) -> None:
        super().__init__()
        self.norm1 = nn.LayerNorm(config.d_model)
        self.attention = config.attention(index)
        self.norm2 = nn.LayerNorm(config.d_model)
        self.feed_forward = nn.Sequential(
            nn.Linear(config.d_model, config.d_ff),
            nn.ReLU(),
            nn.Linear(config.d_ff, config.d_model),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.attention(self.norm1(x))
        return x + self.feed_forward(self.norm2(x))


class PerLayerDecoder(nn.Module):
    """A pre-norm decoder-only toy whose layers take their position from their type.

    Token embedding (no position added), one block per entry of ``config.layer_types``
    (attention from :meth:`PerLayerConfig.attention`, then a ReLU feed-forward, each with a
    residual), a final norm and a tied output. ``(batch, L)`` token ids -> ``(batch, L,
    vocab_size)`` logits. Initialised from torch's global generator. Used in notebook 18.
    """

    def __init__(self, config: PerLayerConfig) -> None:
        super().__init__()
        if not isinstance(config, PerLayerConfig):
            raise TypeError(f"config must be a PerLayerConfig, got {type(config).__name__}")
        self.config = config
        self.embedding = nn.Embedding(config.vocab_size, config.d_model)
        nn.init.normal_(self.embedding.weight, std=config.d_model**-0.5)
        self.layers = nn.ModuleList(_Layer(config, i) for i in range(len(config.layer_types)))
        self.norm = nn.LayerNorm(config.d_model)

    def forward(self, tokens: torch.Tensor) -> torch.Tensor:
        require_tensor("tokens", tokens, ndim=2, integer=True)
        x = self.embedding(tokens) * math.sqrt(self.config.d_model)  # (batch, L, d_model)
        for layer in self.layers:
            x = layer(x)
        return self.norm(x) @ self.embedding.weight.T  # (batch, L, vocab_size)
