"""The ``torch.nn`` reference: PyTorch's own ``nn.Transformer`` behind the course's interface,
to compare accuracy and speed with (notebook 10)."""

from __future__ import annotations

import torch
from torch import nn

from .._checks import require_choice, require_ids, require_int, require_tensor
from ..attention import causal_mask, to_ignore_mask
from ..encodings import POSITION_SCHEMES
from .config import TransformerConfig, _configured
from .models import (
    _Model,
    _require_mask,
    _require_memory,
    _require_same_batch,
    _xavier_init,
)

__all__ = ["TorchReferenceTransformer"]


_ABSOLUTE_SCHEMES = tuple(
    name for name, scheme in POSITION_SCHEMES.items() if scheme.enters in ("embedding", "nowhere")
)


class TorchReferenceTransformer(_Model):
    """``torch.nn.Transformer`` with the same embeddings, output projection, masks (course
    convention) and ``encode``/``decode`` interface as :class:`Transformer`: a reference to
    compare accuracy and speed with.

    It takes the same :class:`~helpers.transformer.TransformerConfig` as :class:`Transformer`
    (``config``, or its fields by name, with the same defaults), including the final LayerNorms
    (present only with ``norm_first=True``; ``torch.nn.Transformer`` would add them to post-LN
    stacks too). Only the absolute schemes "sinusoidal", "learned" and "none" are available,
    since PyTorch's attention has no rotary or relative terms (so no ``nope_layers`` either),
    and ``tie_embeddings`` must be False. Compared with :class:`Transformer` in notebook 10.
    """

    def __init__(
        self,
        src_vocab_size: int,
        tgt_vocab_size: int,
        config: TransformerConfig | None = None,
        **options: object,
    ) -> None:
        super().__init__()
        require_int("src_vocab_size", src_vocab_size, minimum=1)
        require_int("tgt_vocab_size", tgt_vocab_size, minimum=1)
        config = _configured(config, options)
        # PyTorch's attention takes no position module or score bias: only what the embeddings add
        require_choice("positional", config.positional, _ABSOLUTE_SCHEMES)
        if config.tie_embeddings:
            raise ValueError(
                "tie_embeddings must be False for the torch.nn reference (its output projection "
                "is its own matrix), got tie_embeddings=True"
            )
        self._setup(config)
        self.src_vocab_size, self.tgt_vocab_size = src_vocab_size, tgt_vocab_size
        self.src_embedding = self._embedding(src_vocab_size)
        self.tgt_embedding = self._embedding(tgt_vocab_size)
        c = config
        d_model, num_layers, norm_first = c.d_model, c.num_layers, c.norm_first
        layer_args = {
            "d_model": d_model,
            "nhead": c.num_heads,
            "dim_feedforward": c.d_ff,
            "dropout": c.dropout,
            "batch_first": True,
            "norm_first": norm_first,
        }
        encoder = nn.TransformerEncoder(
            nn.TransformerEncoderLayer(**layer_args),
            num_layers,
            norm=nn.LayerNorm(d_model) if norm_first else None,
            enable_nested_tensor=False,  # the nested-tensor fast path warns with pre-LN
        )
        decoder = nn.TransformerDecoder(
            nn.TransformerDecoderLayer(**layer_args),
            num_layers,
            norm=nn.LayerNorm(d_model) if norm_first else None,
        )
        self.transformer = nn.Transformer(
            d_model, c.num_heads, custom_encoder=encoder, custom_decoder=decoder, batch_first=True
        )
        self.output_projection = nn.Linear(d_model, tgt_vocab_size)
        _xavier_init([self.transformer, self.output_projection])

    @staticmethod
    def _key_padding(mask: torch.Tensor | None, batch: int, length: int) -> torch.Tensor | None:
        """A course mask ``(B, 1, 1, L)`` -> PyTorch's ``key_padding_mask (B, L)``, True = ignore."""
        if mask is None:
            return None
        return to_ignore_mask(mask.expand(batch, 1, 1, length)[:, 0, 0, :])

    def encode(self, src: torch.Tensor, src_mask: torch.Tensor | None = None) -> torch.Tensor:
        """``src (B, S)`` -> ``memory (B, S, d_model)``."""
        require_tensor("src", src, ndim=2, integer=True)
        require_ids("src", src, self.src_embedding.vocab_size)
        batch, src_len = src.shape
        _require_mask("src_mask", src_mask, (batch, 1, 1, src_len))
        x = self.src_embedding(src)
        padding = self._key_padding(src_mask, batch, src_len)
        return self.transformer.encoder(x, src_key_padding_mask=padding)

    def decode(
        self,
        tgt: torch.Tensor,
        memory: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        """``tgt (B, T)``, ``memory (B, S, d_model)`` -> logits ``(B, T, tgt_vocab_size)``.

        ``tgt_mask`` may be a key-padding mask ``(B, 1, 1, T)`` or a full ``(B, 1, T, T)`` mask.
        """
        require_tensor("tgt", tgt, ndim=2, integer=True)
        require_ids("tgt", tgt, self.tgt_embedding.vocab_size)
        batch, tgt_len = tgt.shape
        _require_memory(memory, batch, self.d_model)
        src_len = memory.shape[1]
        _require_mask("src_mask", src_mask, (batch, 1, 1, src_len))
        _require_mask("tgt_mask", tgt_mask, (batch, 1, tgt_len, tgt_len))
        causal = causal_mask(tgt_len, device=tgt.device)  # (T, T)
        tgt_padding = None
        if tgt_mask is None:
            attn_mask = to_ignore_mask(causal)
        elif tgt_mask.shape[-2] == 1:  # a key-padding mask: PyTorch's cheaper form
            attn_mask = to_ignore_mask(causal)
            tgt_padding = self._key_padding(tgt_mask, batch, tgt_len)
        else:  # a general mask: one (T, T) mask per batch row and head
            full = (causal & tgt_mask).expand(batch, self.num_heads, tgt_len, tgt_len)
            attn_mask = to_ignore_mask(full.reshape(batch * self.num_heads, tgt_len, tgt_len))
        x = self.transformer.decoder(
            self.tgt_embedding(tgt),
            memory,
            tgt_mask=attn_mask,
            tgt_key_padding_mask=tgt_padding,
            memory_key_padding_mask=self._key_padding(src_mask, batch, src_len),
        )
        return self.output_projection(x)

    def forward(
        self,
        src: torch.Tensor,
        tgt: torch.Tensor,
        src_mask: torch.Tensor | None = None,
        tgt_mask: torch.Tensor | None = None,
    ) -> torch.Tensor:
        _require_same_batch(src, tgt)
        return self.decode(tgt, self.encode(src, src_mask), src_mask, tgt_mask)
