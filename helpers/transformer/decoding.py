"""Using a trained model: greedy decoding and generation, with or without a key/value cache, and
rotary scaling for contexts longer than the training length (notebooks 10 and 15).

The functions take any model with the right methods (``encode``/``decode`` for
:func:`greedy_decode`, a causal ``forward`` for :func:`generate`); they never import the model
classes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable

import torch
from torch import nn

from .._checks import require_bool, require_int, require_tensor
from ..attention import KVCache
from ..encodings import RotaryPositionalAttention, scaled_rotary_frequencies

__all__ = ["greedy_decode", "generate", "set_rotary_scaling"]


def set_rotary_scaling(
    model: nn.Module,
    method: str | None,
    factor: float = 1.0,
    original_max_len: int | None = None,
    **options: object,
) -> tuple[torch.Tensor, float] | None:
    """Stretch the rotary embeddings of every self-attention in ``model`` (built with
    ``positional="rotary"``) for a context ``factor`` times the training length: ``method`` is
    one of ``helpers.encodings.ROTARY_SCALINGS`` (see
    :func:`~helpers.encodings.scaled_rotary_frequencies`, whose keyword arguments, e.g.
    ``beta_fast`` or ``seq_len``, pass through ``options``); ``None`` restores plain rotary.
    Works on a trained model, with or without fine-tuning after. Returns ``(omega,
    attention_scale)``, or None. Derived in notebook 15, used again in notebook 17.
    """
    rotary = [m for m in model.modules() if isinstance(m, RotaryPositionalAttention)]
    if not rotary:
        raise ValueError(
            f"model has no rotary self-attention (build it with positional='rotary'), got "
            f"{type(model).__name__}"
        )
    if method is None:
        for module in rotary:
            module.set_frequencies(None)
        return None
    first = rotary[0]
    omega, scale = scaled_rotary_frequencies(
        first.d_k, method, factor, first.base, original_max_len, **options
    )
    for module in rotary:
        module.set_frequencies(omega, scale)
    return omega, scale


@torch.no_grad()
def greedy_decode(
    model: nn.Module,
    src: torch.Tensor,
    max_len: int,
    bos_id: int,
    eos_id: int | None = None,
    src_mask: torch.Tensor | None = None,
    pad_id: int = 0,
    use_cache: bool = False,
) -> torch.Tensor:
    """Generate with the most likely token at every step, a whole batch at once.

    The decoder starts from ``bos_id`` (the token it was trained to start from, never the pad),
    appends its most likely next token, and repeats ``max_len`` times or until every row has
    produced ``eos_id``. Returns the generated ids ``(batch, <= max_len)`` without the BOS;
    EOS is kept where it was produced, and the positions after it are ``pad_id``.
    ``model`` needs ``encode(src, src_mask)`` and ``decode(tgt, memory, src_mask)`` returning
    logits, as :class:`Transformer` has. The model runs in eval mode (its mode is restored).
    ``use_cache=True`` feeds the decoder only the newest token and keeps the keys and values of
    the earlier ones in a :class:`~helpers.attention.KVCache` (the model's ``decode`` must take
    ``cache=``): the same tokens, without re-running the whole prefix at every step
    (notebook 15).
    """
    if not (isinstance(model, nn.Module) and hasattr(model, "encode") and hasattr(model, "decode")):
        raise TypeError(
            f"model must be an nn.Module with encode and decode methods (such as Transformer), "
            f"got {type(model).__name__}"
        )
    require_tensor("src", src, ndim=2, integer=True)
    if src.numel() == 0:
        raise ValueError(
            f"src must hold at least one sequence of one token, got shape {tuple(src.shape)}"
        )
    max_len = require_int("max_len", max_len, minimum=1)
    vocab = getattr(model, "tgt_vocab_size", None)  # None: a model that does not say
    for name, value in (("bos_id", bos_id), ("eos_id", eos_id), ("pad_id", pad_id)):
        if value is None:  # only eos_id may be None
            continue
        require_int(name, value, minimum=0)
        if vocab is not None and value >= vocab:
            raise ValueError(f"{name} must be < the model's tgt_vocab_size={vocab}, got {value}")
    cache = _new_cache(model, use_cache, "decode")
    was_training = model.training
    model.eval()
    try:
        memory = model.encode(src, src_mask)  # (B, S, d_model): computed once
        ys = torch.full((src.shape[0], 1), bos_id, dtype=torch.long, device=src.device)
        finished = torch.zeros(src.shape[0], dtype=torch.bool, device=src.device)
        for _ in range(max_len):
            if cache is None:  # (B, t, vocab): the whole prefix again
                logits = model.decode(ys, memory, src_mask)
            else:  # (B, 1, vocab): the newest token, the others from the cache
                logits = model.decode(ys[:, -1:], memory, src_mask, cache=cache)
            next_token = logits[:, -1].argmax(dim=-1)  # (B,)
            next_token = next_token.masked_fill(finished, pad_id)
            ys = torch.cat([ys, next_token[:, None]], dim=1)
            if eos_id is not None:
                finished |= next_token == eos_id
                if finished.all():
                    break
    finally:
        model.train(was_training)
    return ys[:, 1:]  # (B, <= max_len): drop the BOS


def _new_cache(model: nn.Module, use_cache: object, method: str) -> KVCache | None:
    """A fresh :class:`KVCache` for ``model`` if ``use_cache``; checks the model can use one."""
    require_bool("use_cache", use_cache)
    if not use_cache:
        return None
    if "cache" not in inspect.signature(getattr(model, method)).parameters:
        raise ValueError(
            f"use_cache=True needs a model whose {method} takes cache= (Transformer, "
            f"DecoderOnlyTransformer), got {type(model).__name__}"
        )
    return KVCache(model.num_layers)


@torch.no_grad()
def generate(
    model: nn.Module,
    prompt: torch.Tensor,
    max_new_tokens: int,
    use_cache: bool = True,
    *,
    cache: KVCache | None = None,
    dynamic_ntk: tuple[float, int] | None = None,
) -> torch.Tensor:
    """Greedy generation with a causal language model such as :class:`DecoderOnlyTransformer`.

    ``prompt (B, P)`` token ids; appends the most likely next token ``max_new_tokens`` times and
    returns ``(B, P + max_new_tokens)``. With ``use_cache`` the prompt runs once and every later
    step feeds only the newest token at its true position ``P, P + 1, ...``, reusing the cached
    keys and values; without, every step re-runs the whole sequence. Same tokens either way
    (notebook 15). ``cache``: an empty cache to fill instead of a fresh ``KVCache``, e.g. a
    :class:`~helpers.transformer.WindowedKVCache` (notebook 17). ``dynamic_ntk=(factor,
    original_max_len)``: before every step the rotary frequencies of dynamic NTK scaling for the
    length so far (plain rotary restored at the end); with keys cached after rotation this is
    the clash of notebook 17, with a ``WindowedKVCache(window=None)`` its fix. The model runs
    in eval mode (its mode is restored).
    """
    if (
        not isinstance(model, nn.Module)
        or hasattr(model, "encode")
        or not hasattr(model, "num_layers")
    ):
        raise TypeError(
            f"model must be a causal language model such as DecoderOnlyTransformer (for an "
            f"encoder-decoder Transformer use greedy_decode), got {type(model).__name__}"
        )
    require_tensor("prompt", prompt, ndim=2, integer=True)
    if prompt.shape[1] == 0:
        raise ValueError(f"prompt must hold at least one token, got shape {tuple(prompt.shape)}")
    max_new_tokens = require_int("max_new_tokens", max_new_tokens, minimum=1)
    cache = _given_cache(cache, use_cache) or _new_cache(model, use_cache, "forward")
    rescale = _dynamic_ntk(model, dynamic_ntk)
    was_training = model.training
    model.eval()
    try:
        tokens, new = prompt, prompt  # new: what the model has not seen yet
        for _ in range(max_new_tokens):
            rescale(tokens.shape[1])  # the length the model is about to see
            logits = model(new, cache=cache) if cache is not None else model(tokens)
            next_token = logits[:, -1].argmax(dim=-1, keepdim=True)  # (B, 1)
            tokens = torch.cat([tokens, next_token], dim=1)  # (B, t + 1)
            new = next_token
    finally:
        model.train(was_training)
        if dynamic_ntk is not None:
            set_rotary_scaling(model, None)
    return tokens


def _given_cache(cache: object, use_cache: object) -> KVCache | None:
    """``cache`` after checking it is an empty :class:`KVCache` given with ``use_cache``."""
    if cache is None:
        return None
    if not isinstance(cache, KVCache):
        raise TypeError(f"cache must be a KVCache or None, got {type(cache).__name__}")
    if cache.length or use_cache is not True:
        raise ValueError(
            f"cache must be empty and come with use_cache=True, got {cache.length} cached "
            f"tokens and use_cache={use_cache!r}"
        )
    return cache


def _dynamic_ntk(model: nn.Module, dynamic_ntk: object) -> Callable[[int], None]:
    """A function of the current length that sets dynamic NTK's frequencies (or does nothing)."""
    if dynamic_ntk is None:
        return lambda seq_len: None
    if not isinstance(dynamic_ntk, tuple) or len(dynamic_ntk) != 2:
        raise TypeError(
            f"dynamic_ntk must be a pair (factor, original_max_len) or None, got {dynamic_ntk!r}"
        )
    factor, original_max_len = dynamic_ntk
    set_rotary_scaling(model, "dynamic", factor, original_max_len, seq_len=1)  # checks them
    return lambda seq_len: set_rotary_scaling(
        model, "dynamic", factor, original_max_len, seq_len=seq_len
    )
