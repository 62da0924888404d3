"""Position chosen per layer: the rotary spectra and the query temperature of 2025-2026 models
(notebook 18).

The models of 2025-2026 give each *layer type* its own position rule, spelled in
``transformers``' configurations as ``layer_types`` (one string per layer) and, in the newest
ones, ``rope_parameters`` nested by layer type (``{"sliding_attention": {...},
"full_attention": {...}}``). Three rules cover them:

- rotary with the layer's own base (and, on some layers, only part of the head rotated);
- no position at all (NoPE): Cohere2's global layers, Llama 4's every fourth layer;
- on Llama 4's NoPE layers only, queries multiplied by a *temperature* that grows with the
  position: :func:`llama4_attention_temperature`.

One configuration key, ``partial_rotary_factor``, means two different spectra depending on the
``rope_type`` beside it:

- :func:`proportional_frequencies` (``rope_type="proportional"``, Gemma 4's global layers):
  keep the fastest ``int(p * head_dim // 2)`` frequencies of the *full* head,
  ``base**(-2k / head_dim)``, and set the other pairs to zero (not rotated): p-RoPE
  (Barbero et al. 2024), the output always ``head_dim / 2`` long.
- :func:`partial_rotary_frequencies_of` (any other ``rope_type``: Phi, GLM-4.5, Qwen3-Next):
  rotate only the first ``r = int(head_dim * p)`` features with ``base**(-2k / r)``: *all*
  of rotary's frequency range, recompressed into ``r / 2`` pairs (GPT-NeoX's partial rotation).
"""

from __future__ import annotations

import math

import torch

from .._checks import require_even, require_positive_float, require_tensor
from .base import PositionalAttention
from .rotary import rotary_frequencies

__all__ = [
    "proportional_frequencies",
    "partial_rotary_frequencies_of",
    "llama4_attention_temperature",
    "QueryTemperature",
]


def _require_fraction(name: str, value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a real number in (0, 1], got {value!r}")
    if not 0.0 < value <= 1.0 or math.isnan(value):
        raise ValueError(f"{name} must be in (0, 1] (the share of the head rotated), got {value!r}")
    return float(value)


def proportional_frequencies(
    head_dim: int, partial_rotary_factor: float, base: float, factor: float = 1.0
) -> torch.Tensor:
    """``rope_type="proportional"``: the fastest pairs of the full head's spectrum, rest zero.

    Pairs ``k < int(partial_rotary_factor * head_dim // 2)`` get ``base**(-2k / head_dim) /
    factor``; the others get 0, i.e. they are not rotated and carry no position. Shape
    ``(head_dim // 2,)``, float64: as long as the head, whatever the factor. Equals
    ``transformers``' ``_compute_proportional_rope_parameters``. Used in notebook 18.
    """
    head_dim = require_even("head_dim", head_dim)
    p = _require_fraction("partial_rotary_factor", partial_rotary_factor)
    base = require_positive_float("base", base)
    factor = require_positive_float("factor", factor)
    omega = rotary_frequencies(head_dim, base)  # (head_dim/2,), base**(-2k/head_dim)
    num_rotated = int(p * head_dim // 2)  # transformers' expression, rounding included
    omega[num_rotated:] = 0.0
    return omega / factor


def partial_rotary_frequencies_of(
    head_dim: int, partial_rotary_factor: float, base: float
) -> torch.Tensor:
    """Any other ``rope_type`` reading ``partial_rotary_factor``: rotary over fewer features.

    ``r = int(head_dim * partial_rotary_factor)`` features are rotated with
    ``omega_k = base**(-2k / r)``, ``k = 0 .. r/2 - 1``; the rest of the head passes through.
    Shape ``(r // 2,)``, float64: the full range from 1 down to about ``1 / base``, in fewer
    pairs. Equals what ``transformers`` computes for ``rope_type="default"`` with that key (each
    model's ``RotaryEmbedding.compute_default_rope_parameters``, e.g. GLM-4.5's). Used in
    notebook 18.
    """
    head_dim = require_even("head_dim", head_dim)
    p = _require_fraction("partial_rotary_factor", partial_rotary_factor)
    base = require_positive_float("base", base)
    rotary_dim = int(head_dim * p)
    if rotary_dim < 2 or rotary_dim % 2:
        raise ValueError(
            f"int(head_dim * partial_rotary_factor) must be an even number >= 2 of rotated "
            f"features, got int({head_dim} * {p}) = {rotary_dim}"
        )
    return rotary_frequencies(rotary_dim, base)


def llama4_attention_temperature(
    positions: torch.Tensor, floor_scale: float = 8192.0, attn_scale: float = 0.1
) -> torch.Tensor:
    """Llama 4's query temperature on its NoPE layers: ``log1p(floor((t + 1) / floor_scale))
    * attn_scale + 1``.

    ``positions``: integer (or float) tensor of positions ``t`` (any shape). Returns float32 of
    the same shape: exactly 1 for ``t < floor_scale - 1``, then growing like the logarithm of
    the length, so that a query far into a long text still picks out a few keys among many
    (Nakanishi 2025, "Scalable-Softmax", arXiv:2501.19399). Llama 4 multiplies the queries of
    its NoPE layers (only) by it (``Llama4TextAttention``, ``attn_temperature_tuning``).
    Used in notebook 18.
    """
    require_tensor("positions", positions)
    if positions.dtype == torch.bool or positions.is_complex():
        raise TypeError(f"positions must be an integer or float tensor, got {positions.dtype}")
    floor_scale = require_positive_float("floor_scale", floor_scale)
    attn_scale = require_positive_float("attn_scale", attn_scale)
    t = positions.float()
    return torch.log1p(torch.floor((t + 1.0) / floor_scale)) * attn_scale + 1.0


class QueryTemperature(PositionalAttention):
    """Llama 4's NoPE layers inside :class:`~helpers.attention.MultiHeadAttention`: no
    rotation; each query multiplied by :func:`llama4_attention_temperature` at its position
    (keys untouched). What ``TransformerConfig(attn_temperature_tuning=True)`` gives a layer type
    whose ``rope_parameters`` is ``None`` (notebook 18).
    """

    def __init__(self, floor_scale: float = 8192.0, attn_scale: float = 0.1) -> None:
        super().__init__()
        self.floor_scale = require_positive_float("floor_scale", floor_scale)
        self.attn_scale = require_positive_float("attn_scale", attn_scale)

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, offset: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries ``(..., L_q, d_k)`` at positions ``offset ..`` scaled by their temperature;
        keys unchanged."""
        positions = torch.arange(offset, offset + q.shape[-2], device=q.device)
        tau = llama4_attention_temperature(positions, self.floor_scale, self.attn_scale)
        return q * tau.to(q.dtype)[:, None], k  # (..., L_q, d_k)

    def extra_repr(self) -> str:
        return f"floor_scale={self.floor_scale:g}, attn_scale={self.attn_scale:g}"
