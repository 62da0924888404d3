"""ALiBi: attention with linear biases, Press, Smith and Lewis (2022), "Train Short, Test Long".

ALiBi adds no vector to the tokens at all. Each head ``h`` adds ``-m_h * (i - j)`` to the
score of query ``i`` and key ``j <= i``: the further back a key, the larger the penalty, with a
fixed head-specific slope ``m_h``. Heads with steep slopes look at the last few tokens, heads with
gentle slopes further back. Nothing is learned, and nothing depends on the training length.

Slopes (paper, section 3): for ``n`` heads, a power of two, the geometric sequence that starts
at ``2**(-8/n)`` and has that same ratio: ``2**(-8/n), 2**(-16/n), ..., 2**(-8)``. For other
head counts the authors' code takes the slopes of the largest power of two ``p < n`` and fills
the remaining ``n - p`` heads with every other slope of ``2p`` heads
(``2**(-4/p), 2**(-12/p), ...``), which interpolates between the first ones.
"""

from __future__ import annotations

import math

import torch

from .._checks import require_device, require_int

__all__ = ["alibi_slopes", "alibi_bias"]


def _power_of_two_slopes(n: int) -> list[float]:
    start = 2.0 ** (-8.0 / n)  # the first slope is also the ratio
    return [start ** (h + 1) for h in range(n)]


def _slopes(n: int) -> list[float]:
    if n & (n - 1) == 0:  # a power of two
        return _power_of_two_slopes(n)
    p = 2 ** math.floor(math.log2(n))  # largest power of two below n
    return _power_of_two_slopes(p) + _slopes(2 * p)[0::2][: n - p]


def alibi_slopes(num_heads: int) -> torch.Tensor:
    """ALiBi's head-specific slopes ``m_h``, a float32 tensor of shape ``(num_heads,)``.

    Powers of two follow the paper: 8 heads give ``1/2, 1/4, ..., 1/256``. Other head counts
    follow the authors' code (ofirpress/attention_with_linear_biases, ``get_slopes``; the paper
    does not give this rule): 12 heads get the 8 slopes of 8 heads, then
    ``2**-0.5, 2**-1.5, 2**-2.5, 2**-3.5``.
    Derived in notebook 11.
    """
    num_heads = require_int("num_heads", num_heads, minimum=1)
    return torch.tensor(_slopes(num_heads), dtype=torch.float32)


def alibi_bias(
    seq_len: int, num_heads: int, device: torch.device | str | None = None
) -> torch.Tensor:
    """Additive attention bias ``-m_h * |i - j|``, float32 of shape ``(num_heads, seq_len, seq_len)``.

    For keys ``j <= i`` this is the paper's ``-m_h * (i - j)``. The bias is written symmetric
    so that it is defined everywhere, but ALiBi is meant for causal attention: the causal mask
    removes the keys ``j > i``, and there the value of the bias does not matter.
    Add it to ``q k^T / sqrt(d_k)`` before the softmax (the ``attn_bias`` of
    :func:`helpers.attention.scaled_dot_product_attention`).
    Derived in notebook 11; used by the models built with ``positional="alibi"`` (lesson 12).
    """
    seq_len = require_int("seq_len", seq_len, minimum=1)
    device = require_device("device", device)
    slopes = alibi_slopes(num_heads).to(device)  # (num_heads,)
    t = torch.arange(seq_len, device=device)
    distance = (t[:, None] - t[None, :]).abs().to(torch.float32)  # (seq_len, seq_len): |i - j|
    return -slopes[:, None, None] * distance  # (num_heads, seq_len, seq_len)
