"""The position schemes the models know: one :class:`PositionScheme` entry per scheme.

A scheme enters a Transformer in one of these places, and its entry says which:

- ``"embedding"``: a vector added to each token's embedding (sinusoidal, learned), by a module
  ``embedding(d_model, max_len)`` whose ``forward(x, offset)`` adds ``P[offset : offset + L]``.
- ``"rotation"``: queries and keys turned inside every self-attention (rotary), and
- ``"relative"``: terms added to the scores and outputs of every self-attention (Shaw et al.),
  both by a :class:`~helpers.encodings.PositionalAttention` built by ``attention(d_k, config)``.
- ``"score bias"``: an additive bias on the scores (ALiBi), ``attn_bias(num_heads, len_q,
  len_k, like)`` for queries at positions ``len_k - len_q ..`` (the last ones: a key/value
  cache holds the first) and keys ``0 .. len_k - 1``. It may have shape ``(num_heads, L_q,
  L_k)`` or one bias per example ``(B, num_heads, L_q, L_k)``; ``like`` is the embedded batch
  ``(B, L_q, d_model)``, whose dtype and device the bias takes.
- ``"nowhere"``: no position at all ("none").

Cross-attention never gets a positional term: its queries and keys live in different sequences.
The models (``helpers.transformer``) consult :data:`POSITION_SCHEMES` and never branch on a
scheme's name; :func:`require_scheme` checks a scheme's constraints against a model's sizes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import torch
from torch import nn

from .._checks import require_choice
from .alibi import alibi_bias
from .learned import LearnedPositionalEmbedding
from .relative import RelativePositionalAttention
from .rotary import RotaryPositionalAttention
from .sinusoidal import SinusoidalPositionalEncoding

__all__ = ["PositionScheme", "POSITION_SCHEMES", "require_scheme"]

ENTRY_POINTS = ("embedding", "rotation", "relative", "score bias", "nowhere")


@dataclass(frozen=True)
class PositionScheme:
    """How one position scheme enters a model, what it needs, and how to build it.

    ``enters``: one of ``"embedding"``, ``"rotation"``, ``"relative"``, ``"score bias"``,
    ``"nowhere"``. ``even_d_model`` / ``even_d_k``: the model width / head width must be even
    (sin-cos or rotation pairs). ``bounded``: positions past ``max_len`` have no encoding.
    Exactly the builder that matches ``enters`` is given (see the module docstring).
    Used by the models, :class:`~helpers.transformer.Transformer` and
    :class:`~helpers.transformer.DecoderOnlyTransformer` (notebooks 10, 12 and 15).
    """

    name: str
    enters: str
    summary: str
    even_d_model: bool = False
    even_d_k: bool = False
    bounded: bool = False
    embedding: Callable[[int, int], nn.Module] | None = None
    attention: Callable[[int, object], nn.Module] | None = None
    attn_bias: Callable[[int, int, int, torch.Tensor], torch.Tensor] | None = None

    def __post_init__(self) -> None:
        require_choice("enters", self.enters, ENTRY_POINTS)
        builder = {"embedding": "embedding", "score bias": "attn_bias"}.get(self.enters)
        if self.enters in ("rotation", "relative"):
            builder = "attention"
        given = [b for b in ("embedding", "attention", "attn_bias") if getattr(self, b)]
        if given != ([builder] if builder else []):
            raise ValueError(
                f"scheme {self.name!r} enters via {self.enters!r}: it needs exactly the builder "
                f"{builder or 'none'}, got {given or 'none'}"
            )


# Entries of the sinusoidal table have mean 0 and variance 1/2 (sin^2 and cos^2 average to 1/2);
# a learned table starts with the same spread so that the two absolute kinds differ only in
# whether the table is trained.
_LEARNED_INIT_STD = math.sqrt(0.5)


def _alibi(num_heads: int, len_q: int, len_k: int, like: torch.Tensor) -> torch.Tensor:
    """ALiBi's ``-m_h |i - j|`` for the last ``len_q`` queries: ``(num_heads, L_q, L_k)``."""
    bias = alibi_bias(len_k, num_heads, device=like.device).to(like.dtype)  # (H, L_k, L_k)
    return bias[:, len_k - len_q :]  # (H, L_q, L_k)


POSITION_SCHEMES: dict[str, PositionScheme] = {
    scheme.name: scheme
    for scheme in (
        PositionScheme(
            "sinusoidal",
            "embedding",
            "the paper's fixed sin/cos table, added to the embeddings (notebook 03)",
            even_d_model=True,
            bounded=True,
            embedding=lambda d_model, max_len: SinusoidalPositionalEncoding(d_model, max_len),
        ),
        PositionScheme(
            "learned",
            "embedding",
            "a trained table, one row per position, added to the embeddings (notebook 05)",
            bounded=True,
            embedding=lambda d_model, max_len: LearnedPositionalEmbedding(
                max_len, d_model, init_std=_LEARNED_INIT_STD
            ),
        ),
        PositionScheme("none", "nowhere", "no position: the model is order-blind (notebook 01)"),
        PositionScheme(
            "rotary",
            "rotation",
            "queries and keys rotated by their positions in every self-attention (notebook 11)",
            even_d_model=True,
            even_d_k=True,
            attention=lambda d_k, config: RotaryPositionalAttention(d_k),
        ),
        PositionScheme(
            "alibi",
            "score bias",
            "a linear distance penalty per head added to the scores (notebook 11)",
            attn_bias=_alibi,
        ),
        PositionScheme(
            "relative",
            "relative",
            "learned vectors per clipped offset j - i in the scores (Shaw et al., notebook 11)",
            attention=lambda d_k, config: RelativePositionalAttention(
                d_k, config.relative_max_distance
            ),
        ),
    )
}
"""Every scheme the models take as ``positional=``, by name."""


def require_scheme(positional: object, d_model: int, num_heads: int) -> PositionScheme:
    """The entry of ``positional``, after checking its constraints hold for these sizes.

    Used by the models, :class:`~helpers.transformer.Transformer` and
    :class:`~helpers.transformer.DecoderOnlyTransformer` (notebooks 10, 12 and 15).
    """
    positional = require_choice("positional", positional, tuple(POSITION_SCHEMES))
    scheme = POSITION_SCHEMES[positional]
    if scheme.even_d_model and d_model % 2:
        raise ValueError(f"d_model must be even for positional={positional!r}, got {d_model}")
    d_k = d_model // num_heads
    if scheme.even_d_k and d_k % 2:
        raise ValueError(
            f"positional={positional!r} needs an even head width d_k = d_model // num_heads, "
            f"got d_k={d_k} (d_model={d_model}, num_heads={num_heads})"
        )
    return scheme
