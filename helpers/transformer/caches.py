"""A key/value cache that keeps ``sinks`` first tokens plus a window of the last ones, and where
the keys sit: at their place in the cache, or at their place in the text (notebook 17).

StreamingLLM (Xiao et al. 2024) generates past the training length with a bounded cache: the
first ``sinks`` tokens (which trained models attend to heavily) and the last ``window`` ones.
A rotary model must then see positions it was trained on, so the authors cache the keys
*before* rotation and rotate every key at its slot in the cache, ``0 .. len - 1``, at every
step; the new query sits at the last slot. ``positions="text"`` keeps the usual cache (keys
rotated once, at their position in the text) and evicts from it: for rotary only offsets
matter, and the offset from the newest query to the kept sinks then grows past anything trained
(the window's own offsets stay small), the mistake notebook 17 shows.

Keys stored before rotation have a second use: with ``window=None`` nothing is evicted and the
slots are the text positions, but every key is rotated with the frequencies of *this* step, the
fix for dynamic NTK scaling, whose base changes with the length (transformers issue 25104).
"""

from __future__ import annotations

import torch

from .._checks import require_choice, require_int
from ..attention import KVCache, LayerKVCache

__all__ = ["WindowedKVCache", "CACHE_POSITIONS"]

CACHE_POSITIONS = ("cache", "text")


class _WindowedLayerKVCache(LayerKVCache):
    """One layer's cache: keys ``(B, H, length, d_k)`` before rotation (``positions="cache"``)
    or rotated at their text positions (``"text"``), and the number of tokens seen."""

    def __init__(self, positions: str) -> None:
        super().__init__()
        self.rotates_at_slots = positions == "cache"  # MultiHeadAttention reads it
        self.seen = 0  # tokens that went through this layer, evicted ones included

    @property
    def position(self) -> int:
        """Where the next token sits: its slot in the cache, or its index in the text."""
        return self.length if self.rotates_at_slots else self.seen

    def extend(self, k: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        keys, values = super().extend(k, v)
        self.seen += k.shape[-2]
        return keys, values

    def evict(self, sinks: int, keep: int) -> None:
        """Keep the first ``sinks`` and the last ``keep - sinks`` of the cached entries."""
        if self.length > keep:
            recent = self.length - (keep - sinks)  # the first index of the kept recent ones
            self.keys = torch.cat([self.keys[..., :sinks, :], self.keys[..., recent:, :]], -2)
            self.values = torch.cat([self.values[..., :sinks, :], self.values[..., recent:, :]], -2)


class WindowedKVCache(KVCache):
    """A :class:`~helpers.attention.KVCache` that keeps the first ``sinks`` tokens and the last
    ``window`` ones (StreamingLLM), for a :class:`DecoderOnlyTransformer` whose position is
    rotary or absent.

    ``positions="cache"``: keys are cached before rotation and every key is rotated at its slot
    ``0 .. len - 1`` at each step (the authors' way), so positions never pass
    ``sinks + window``. ``positions="text"``: keys are rotated once, at their index in the text
    (what a plain cache does), and evicted keys leave gaps. ``window=None`` evicts nothing: with
    ``"cache"``, every key is then rotated with the current frequencies (dynamic NTK's fix).
    The model makes room before each call (:meth:`make_room`), so that the new tokens fit;
    a call may bring at most ``window`` new tokens. Used in notebook 17.
    """

    def __init__(
        self, num_layers: int, sinks: int = 4, window: int | None = None, positions: str = "cache"
    ) -> None:
        num_layers = require_int("num_layers", num_layers, minimum=1)
        self.sinks = require_int("sinks", sinks, minimum=0)
        self.window = None if window is None else require_int("window", window, minimum=1)
        self.positions = require_choice("positions", positions, CACHE_POSITIONS)
        self.layers = [_WindowedLayerKVCache(positions) for _ in range(num_layers)]

    @property
    def seen(self) -> int:
        """How many tokens went through the cache, evicted ones included."""
        return self.layers[0].seen

    def make_room(self, num_new: int) -> None:
        """Evict the oldest tokens after the sinks so that ``num_new`` more fit in
        ``sinks + window``; raise if ``num_new`` is more than ``window``."""
        num_new = require_int("num_new", num_new, minimum=1)
        if self.window is None:
            return
        if num_new > self.window:
            raise ValueError(
                f"a call may bring at most window={self.window} new tokens to a WindowedKVCache "
                f"(sinks={self.sinks}), got {num_new}: feed a long prompt in pieces"
            )
        for layer in self.layers:
            layer.evict(self.sinks, self.sinks + self.window - num_new)
