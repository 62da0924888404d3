"""Token embedding plus position: the first layer of a Transformer (paper, sections 3.4-3.5).

``TokenAndPositionalEmbedding`` turns token ids ``(batch, seq_len)`` into vectors
``(batch, seq_len, d_model)``: look up each token's row, scale it by ``sqrt(d_model)``, add the
position signal (for absolute schemes) and apply dropout to the sum.

``position_probe`` asks whether position survives that sum: a linear probe (linear discriminant
analysis) that reads the position back from each vector.
"""

from __future__ import annotations

import math

import numpy as np
import torch
from torch import nn

from .._checks import require_choice, require_ids, require_int, require_probability, require_tensor
from .registry import POSITION_SCHEMES

__all__ = ["TokenAndPositionalEmbedding", "position_probe"]


class TokenAndPositionalEmbedding(nn.Module):
    """``tokens (batch, seq_len)`` -> ``dropout(E[tokens] * sqrt(d_model) + P[:seq_len])``.

    ``positional`` picks ``P`` from :data:`~helpers.encodings.POSITION_SCHEMES`: the schemes
    that enter at the embedding ("sinusoidal": a fixed table, "learned": a trained table of
    ``max_len`` rows) add it here; the others ("none", "rotary", "alibi", "relative") add nothing.

    Initialisation: token rows are drawn from ``N(0, 1/d_model)``, so the scaled embedding
    ``sqrt(d_model) * E[token]`` has entries of variance 1 and a norm of about
    ``sqrt(d_model)``, comparable with the sinusoidal encoding (entries of variance 1/2, norm
    ``sqrt(d_model/2)``). PyTorch's default ``N(0, 1)`` would make the scaled embedding
    ``sqrt(d_model)`` times larger and swamp the position signal. The row of ``padding_idx``
    (if given) is zero and receives no gradient.

    Attributes: ``token_embedding`` (``nn.Embedding``), ``position`` (the position module, or
    None when nothing is added here), ``dropout``, ``d_model``, ``max_len``, ``positional``.
    Derived in notebook 05; the first layer of every model (lessons 10, 12, 15).
    """

    def __init__(
        self,
        vocab_size: int,
        d_model: int,
        max_len: int = 512,
        positional: str = "sinusoidal",
        dropout: float = 0.0,
        padding_idx: int | None = None,
    ) -> None:
        super().__init__()
        self.vocab_size = require_int("vocab_size", vocab_size, minimum=1)
        self.d_model = require_int("d_model", d_model, minimum=1)
        self.max_len = require_int("max_len", max_len, minimum=1)
        self.positional = require_choice("positional", positional, tuple(POSITION_SCHEMES))
        if padding_idx is not None:
            padding_idx = require_int("padding_idx", padding_idx, minimum=0)
            if padding_idx >= self.vocab_size:
                raise ValueError(
                    f"padding_idx must be < vocab_size={self.vocab_size}, got {padding_idx}"
                )
        self.padding_idx = padding_idx
        self.token_embedding = nn.Embedding(self.vocab_size, self.d_model, padding_idx=padding_idx)
        build = POSITION_SCHEMES[positional].embedding  # None: position enters elsewhere
        self.position = None if build is None else build(self.d_model, self.max_len)
        self.dropout = nn.Dropout(require_probability("dropout", dropout))
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Token rows from ``N(0, 1/d_model)`` (padding row zero); learned positions redrawn."""
        nn.init.normal_(self.token_embedding.weight, mean=0.0, std=self.d_model**-0.5)
        if self.padding_idx is not None:
            with torch.no_grad():
                self.token_embedding.weight[self.padding_idx].zero_()
        if hasattr(self.position, "reset_parameters"):  # a learned table: redrawn
            self.position.reset_parameters()

    def forward(self, tokens: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """``tokens (batch, seq_len)`` integer ids -> ``(batch, seq_len, d_model)`` floats.

        The tokens sit at positions ``offset .. offset + seq_len - 1`` (``offset`` > 0 when they
        continue a prefix held in a key/value cache, notebook 15).
        """
        require_tensor("tokens", tokens, ndim=2, integer=True)
        require_ids("tokens", tokens, self.vocab_size)
        return self._forward(tokens, offset)

    def _forward(self, tokens: torch.Tensor, offset: int) -> torch.Tensor:
        """:meth:`forward` without checking the tokens (the models check them first)."""
        x = self.token_embedding(tokens) * math.sqrt(self.d_model)  # (batch, seq_len, d_model)
        if self.position is not None:
            x = self.position(x, offset)  # adds P[offset : offset + seq_len]; raises past max_len
        return self.dropout(x)

    def extra_repr(self) -> str:
        return f"positional={self.positional!r}"


def _probe_data(name: str, x: object, t: object) -> tuple[np.ndarray, np.ndarray]:
    """Validate vectors ``x`` (n, d) and their integer positions ``t`` (n,); return float64/int64."""
    x, t = np.asarray(x), np.asarray(t)
    if (
        x.ndim != 2
        or not np.issubdtype(x.dtype, np.number)
        or np.issubdtype(x.dtype, np.complexfloating)
    ):
        raise TypeError(
            f"x_{name} must be a real 2-D array (num_vectors, d), got shape {x.shape} of {x.dtype}"
        )
    if t.ndim != 1 or not np.issubdtype(t.dtype, np.integer) or len(t) != len(x):
        raise TypeError(
            f"t_{name} must be a 1-D integer array with one position per row of x_{name} "
            f"({len(x)}), got shape {t.shape} of {t.dtype}"
        )
    if not np.isfinite(x).all():
        raise ValueError(f"x_{name} must be finite, got NaN or infinity")
    return x.astype(np.float64), t.astype(np.int64)


def position_probe(
    x_train: np.ndarray, t_train: np.ndarray, x_test: np.ndarray, t_test: np.ndarray
) -> tuple[float, float]:
    """Read positions back from vectors with a linear probe; ``(exact accuracy, mean |error|)``.

    The idea in one line: average the training vectors of each position, then give a test vector
    the position of the nearest average, with distances measured against the noise around the
    averages (the token part: its shared covariance ``Sigma``). That is linear discriminant
    analysis: position ``t`` scores ``x @ w_t + b_t`` with ``w_t = Sigma^-1 mu_t`` and
    ``b_t = -mu_t @ w_t / 2``, and the highest score wins; fitted in closed form, no training loop.

    Shapes: ``x_train`` (n_train, d), ``t_train`` (n_train,), ``x_test`` (n_test, d),
    ``t_test`` (n_test,). Returns the share of test vectors placed at exactly their position
    and the mean distance ``|predicted - t|`` in positions. Used in notebook 05.
    """
    x_train, t_train = _probe_data("train", x_train, t_train)
    x_test, t_test = _probe_data("test", x_test, t_test)
    if x_test.shape[1] != x_train.shape[1]:
        raise ValueError(
            f"x_test must have the width of x_train ({x_train.shape[1]}), got {x_test.shape[1]}"
        )
    positions = np.unique(t_train)  # (num_positions,)
    if len(x_train) <= x_train.shape[1] + len(positions):
        raise ValueError(
            f"x_train must hold more vectors ({len(x_train)}) than its width plus the number of "
            f"positions ({x_train.shape[1]} + {len(positions)}) to estimate the covariance"
        )
    means = np.stack([x_train[t_train == t].mean(axis=0) for t in positions])  # (P, d)
    noise = x_train - means[np.searchsorted(positions, t_train)]  # (n_train, d)
    covariance = np.atleast_2d(np.cov(noise.T))  # (d, d), shared by all positions
    W = np.linalg.solve(covariance, means.T)  # (d, P)
    b = -0.5 * (means * W.T).sum(axis=1)  # (P,)
    predicted = positions[(x_test @ W + b).argmax(axis=1)]  # (n_test,)
    return float((predicted == t_test).mean()), float(np.abs(predicted - t_test).mean())
