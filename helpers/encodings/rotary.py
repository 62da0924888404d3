"""Rotary position embeddings (RoPE), Su et al. (2021), "RoFormer", section 3.4.

RoPE does not add anything to the token vectors. It *rotates* each query and key, pair of
dimensions by pair of dimensions, by an angle proportional to the position ``t``: pair ``k``
turns by ``t * omega_k`` with ``omega_k = base**(-2k / d)``, the frequencies of the sinusoidal
encoding. A rotation by ``m * omega`` followed by a dot product with a vector rotated by
``n * omega`` only sees the difference of the angles, so the attention score depends on the
offset ``n - m`` and not on ``m`` and ``n`` themselves (notebook 04's rotation, used directly).

Two layouts decide which dimensions form a pair:

- ``"interleaved"`` (the paper, GPT-J, Meta's original LLaMA code): pairs ``(2k, 2k+1)``.
- ``"half"`` (GPT-NeoX, Hugging Face's ``rotate_half``): pairs ``(k, k + d/2)``.

They are the same operation up to a fixed permutation of the dimensions
(:func:`interleaved_to_half_permutation`); mixing them, e.g. weights trained with one and code
written for the other, silently breaks the relative property.

Partial rotation (notebook 16) turns only some features and passes the rest through:

- ``apply_rotary(x, rotary_dim=r)`` (GPT-J, GPT-NeoX, Phi): the first ``r`` features are
  rotated, paired inside them by the layout (``(2k, 2k+1)`` or ``(k, k + r/2)``) with
  ``omega_k = base**(-2k / r)``: all of rotary's frequencies, spread over fewer pairs.
- p-RoPE (Barbero et al. 2024): :func:`p_rope_frequencies` keeps the fastest original
  frequencies ``base**(-2k / d)`` and sets the slow ones to zero; a zero frequency leaves its
  pair unrotated, so ``apply_rotary(x, frequencies=p_rope_frequencies(...))`` does it.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from .._checks import require_choice, require_even, require_positive_float, require_tensor
from .base import PositionalAttention

__all__ = [
    "ROTARY_LAYOUTS",
    "rotary_frequencies",
    "partial_rotary_frequencies",
    "p_rope_frequencies",
    "rotate_half",
    "rotate_interleaved",
    "interleaved_to_half_permutation",
    "apply_rotary",
    "RotaryPositionalAttention",
]

ROTARY_LAYOUTS = ("interleaved", "half")


def rotary_frequencies(
    d: int, base: float = 10000.0, dtype: torch.dtype = torch.float64
) -> torch.Tensor:
    """Angular frequencies ``omega_k = base**(-2k / d)`` for pairs ``k = 0 .. d/2 - 1``.

    Returns a tensor of shape ``(d // 2,)``, decreasing from 1.
    The frequencies of :class:`RotaryPositionalAttention`, derived in notebook 11; used in
    notebook 15.
    """
    d = require_even("d", d)
    base = require_positive_float("base", base)
    if not isinstance(dtype, torch.dtype):
        raise TypeError(f"dtype must be a torch.dtype such as torch.float32, got {dtype!r}")
    k = torch.arange(d // 2, dtype=torch.float64)  # pair index, NOT the dimension index
    return (base ** (-2.0 * k / d)).to(dtype)


def partial_rotary_frequencies(d: int, rotary_dim: int, base: float = 10000.0) -> torch.Tensor:
    """GPT-NeoX-style partial rotation as ``d/2`` frequencies for the interleaved layout.

    The first ``rotary_dim / 2`` pairs get ``base**(-2k / rotary_dim)``, the others 0 (not
    rotated): ``apply_rotary(x, frequencies=...)`` then equals ``apply_rotary(x,
    rotary_dim=rotary_dim)`` in the interleaved layout, and
    :meth:`RotaryPositionalAttention.set_frequencies` gives a model partial rotation.
    Shape ``(d // 2,)``, float64. Used in notebook 16.
    """
    d = require_even("d", d)
    rotary_dim = _require_rotary_dim(rotary_dim, d)
    base = require_positive_float("base", base)
    kept = rotary_frequencies(rotary_dim, base)  # (rotary_dim/2,)
    return torch.cat((kept, torch.zeros((d - rotary_dim) // 2, dtype=kept.dtype)))


def p_rope_frequencies(d: int, fraction: float, base: float = 10000.0) -> torch.Tensor:
    """p-RoPE (Barbero et al. 2024): keep the fastest ``fraction`` of rotary's frequencies.

    Pairs ``k < int(fraction * d // 2)`` keep ``omega_k = base**(-2k / d)``, the rest get 0 and
    are not rotated (``transformers``' ``"proportional"`` rope type computes the same).
    ``fraction`` in ``[0, 1]``. Shape ``(d // 2,)``, float64. Used in notebook 16.
    """
    d = require_even("d", d)
    if isinstance(fraction, bool) or not isinstance(fraction, (int, float)):
        raise TypeError(f"fraction must be a real number in [0, 1], got {fraction!r}")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(
            f"fraction must be in [0, 1] (the share of pairs rotated), got {fraction!r}"
        )
    omega = rotary_frequencies(d, base)  # (d/2,)
    num_rotated = int(fraction * d // 2)  # the expression transformers uses, rounding included
    omega[num_rotated:] = 0.0
    return omega


def _require_rotary_dim(rotary_dim: object, d: int) -> int:
    rotary_dim = require_even("rotary_dim", rotary_dim)
    if rotary_dim > d:
        raise ValueError(
            f"rotary_dim must be an even number of features <= the width d={d}, got {rotary_dim}"
        )
    return rotary_dim


def rotate_half(x: torch.Tensor) -> torch.Tensor:
    """``(x_1, x_2) -> (-x_2, x_1)`` on the two halves of the last dimension.

    With ``x`` in the half layout, ``x * cos + rotate_half(x) * sin`` rotates every pair
    ``(k, k + d/2)`` by its angle. Shape ``(..., d)`` in and out, ``d`` even.
    Derived in notebook 11; used in notebook 13.
    """
    require_tensor("x", x, min_ndim=1)
    require_even("x.shape[-1]", x.shape[-1])
    return _rotate_half(x)


def _rotate_half(x: torch.Tensor) -> torch.Tensor:
    x1, x2 = x.chunk(2, dim=-1)  # (..., d/2) each
    return torch.cat((-x2, x1), dim=-1)


def rotate_interleaved(x: torch.Tensor) -> torch.Tensor:
    """``(x_2k, x_2k+1) -> (-x_2k+1, x_2k)`` for every pair of neighbouring dimensions.

    The interleaved-layout twin of :func:`rotate_half`. Shape ``(..., d)`` in and out.
    Derived in notebook 11.
    """
    require_tensor("x", x, min_ndim=1)
    require_even("x.shape[-1]", x.shape[-1])
    return _rotate_interleaved(x)


def _rotate_interleaved(x: torch.Tensor) -> torch.Tensor:
    pairs = x.unflatten(-1, (-1, 2))  # (..., d/2, 2)
    return torch.stack((-pairs[..., 1], pairs[..., 0]), dim=-1).flatten(-2)


def interleaved_to_half_permutation(d: int) -> torch.Tensor:
    """Index ``perm`` with ``x[..., perm]`` = ``x`` reordered from interleaved to half layout.

    ``perm = [0, 2, 4, ..., d-2, 1, 3, ..., d-1]``: the first elements of every pair, then the
    second ones. Then ``apply_rotary(x)[..., perm] == apply_rotary(x[..., perm], layout="half")``.
    (Checkpoint converters permute the rows of ``W_q`` and ``W_k`` by exactly this index.)
    Derived in notebook 11; used in notebook 13.
    """
    d = require_even("d", d)
    return torch.cat((torch.arange(0, d, 2), torch.arange(1, d, 2)))


def _positions_tensor(positions, seq_len: int, device: torch.device) -> torch.Tensor:
    if positions is None:
        return torch.arange(seq_len, device=device)
    if isinstance(positions, Sequence) and not isinstance(positions, str):
        positions = torch.tensor(positions)
    require_tensor("positions", positions)
    if positions.dtype == torch.bool or positions.is_complex():
        raise TypeError(
            f"positions must be an integer or float tensor, got dtype {positions.dtype}"
        )
    if positions.ndim == 0 or positions.shape[-1] != seq_len:
        raise ValueError(
            f"positions must have last dimension seq_len={seq_len} (one position per row of x), "
            f"got shape {tuple(positions.shape)}"
        )
    return positions.to(device)


def apply_rotary(
    x: torch.Tensor,
    positions: torch.Tensor | Sequence[int] | None = None,
    base: float = 10000.0,
    layout: str = "interleaved",
    frequencies: torch.Tensor | None = None,
    rotary_dim: int | None = None,
) -> torch.Tensor:
    """Rotate every pair of dimensions of ``x`` by ``position * omega_k``.

    ``x``: float tensor ``(..., seq_len, d)`` with ``d`` even (queries or keys of one head).
    ``positions``: ``(seq_len,)`` (or broadcastable to ``x.shape[:-1]``), integer or float;
    default ``0 .. seq_len - 1``. ``layout``: ``"interleaved"`` pairs ``(2k, 2k+1)``,
    ``"half"`` pairs ``(k, k + d/2)``. ``frequencies``: the ``omega_k``, shape ``(d/2,)``, to
    use instead of ``base**(-2k/d)`` (e.g. from :func:`scaled_rotary_frequencies`, notebook 15).
    ``rotary_dim``: rotate only the first ``rotary_dim`` features (GPT-J, GPT-NeoX; notebook
    16), paired inside them by the layout, with ``base**(-2k/rotary_dim)`` (or
    ``frequencies`` of shape ``(rotary_dim/2,)``); features ``rotary_dim ..`` pass unchanged.
    Returns a tensor of the shape and dtype of ``x``.

    For a pair ``(x_a, x_b)`` and angle ``theta = t * omega_k``:
    ``(x_a cos theta - x_b sin theta, x_a sin theta + x_b cos theta)``.
    Position 0 is the identity and every pair keeps its length.
    """
    if rotary_dim is not None:
        require_tensor("x", x, min_ndim=2, floating=True)
        rotary_dim = _require_rotary_dim(rotary_dim, x.shape[-1])
        if rotary_dim < x.shape[-1]:
            x_rot, x_pass = x[..., :rotary_dim], x[..., rotary_dim:]  # (..., L, r), (..., L, d-r)
            x_rot = apply_rotary(x_rot, positions, base, layout, frequencies)
            return torch.cat((x_rot, x_pass), dim=-1)  # (..., seq_len, d)
    t, omega = _rotary_inputs(x, positions, base, layout, frequencies)  # float64 (or 32)
    angles = t[..., None] * omega  # (..., seq_len, d/2): theta = t * omega_k
    return _rotate_by(x, angles, layout)


def _rotate_by(x: torch.Tensor, angles: torch.Tensor, layout: str) -> torch.Tensor:
    """Turn pair ``k`` of ``x (..., d)`` by ``angles[..., k]`` (``(..., d/2)``) in ``layout``."""
    if layout == "interleaved":
        angles = angles.repeat_interleave(2, dim=-1)  # (..., seq_len, d): theta_0, theta_0, ...
        rotated = _rotate_interleaved(x)
    else:
        angles = torch.cat((angles, angles), dim=-1)  # (..., seq_len, d): theta_0, theta_1, ...
        rotated = _rotate_half(x)
    cos, sin = angles.cos().to(x.dtype), angles.sin().to(x.dtype)
    return x * cos + rotated * sin  # (..., seq_len, d)


def _rotary_inputs(x, positions, base, layout, frequencies) -> tuple[torch.Tensor, torch.Tensor]:
    """Check :func:`apply_rotary`'s arguments; return the positions ``(..., seq_len)`` and the
    frequencies ``(d/2,)`` on ``x``'s device, in float64 (float32 on devices without it) so
    that long positions stay accurate."""
    require_tensor("x", x, min_ndim=2, floating=True)
    d = require_even("x.shape[-1]", x.shape[-1])
    require_choice("layout", layout, ROTARY_LAYOUTS)
    base = require_positive_float("base", base)
    t = _positions_tensor(positions, x.shape[-2], x.device)
    work = torch.float32 if x.device.type == "mps" else torch.float64
    if frequencies is None:
        return t.to(work), rotary_frequencies(d, base, dtype=work).to(x.device)
    require_tensor("frequencies", frequencies, ndim=1, floating=True)
    if frequencies.shape[0] != d // 2:
        raise ValueError(
            f"frequencies must have shape (d/2,) = ({d // 2},) for x of width d={d}, got "
            f"{tuple(frequencies.shape)}"
        )
    return t.to(work), frequencies.to(device=x.device, dtype=work)


class RotaryPositionalAttention(PositionalAttention):
    """Rotary position inside attention: every head's queries and keys turned by their
    positions (interleaved layout), so that ``q_m . k_n`` depends on ``n - m`` only.

    ``RotaryPositionalAttention(d_k, base)`` is what ``MultiHeadAttention(position=...)`` and
    the models' ``positional="rotary"`` build. :meth:`set_frequencies` swaps in other
    frequencies and a query/key factor (long contexts). Derived in notebook 11; stretched in
    notebook 15.
    """

    def __init__(self, d_k: int, base: float = 10000.0) -> None:
        super().__init__()
        self.d_k = require_even("d_k", d_k)
        self.base = require_positive_float("base", base)
        # Frequencies other than base**(-2k/d_k) and a factor on queries and keys: see
        # set_frequencies (notebook 15). None and 1.0: plain rotary.
        self.register_buffer("frequencies", None, persistent=False)  # (d_k/2,) or None
        self.attention_scale = 1.0

    def set_frequencies(
        self, frequencies: torch.Tensor | None, attention_scale: float = 1.0
    ) -> None:
        """Rotate with ``frequencies (d_k/2,)`` instead of ``base``'s, and multiply the rotated
        queries and keys by ``attention_scale`` (YaRN's temperature); ``None`` and 1.0 restore plain
        rotary. :func:`~helpers.encodings.scaled_rotary_frequencies` makes them (notebook 15)."""
        if frequencies is not None:
            require_tensor("frequencies", frequencies, ndim=1, floating=True)
            if frequencies.shape[0] != self.d_k // 2:
                raise ValueError(
                    f"frequencies must have shape (d_k/2,) = ({self.d_k // 2},), got "
                    f"{tuple(frequencies.shape)}"
                )
        self.frequencies = frequencies
        self.attention_scale = require_positive_float("attention_scale", attention_scale)

    def rotate(
        self, q: torch.Tensor, k: torch.Tensor, offset: int
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """Queries and keys ``(..., L, d_k)`` at positions ``offset, offset + 1, ...``."""
        q = apply_rotary(q, _from(offset, q), self.base, frequencies=self.frequencies)
        k = apply_rotary(k, _from(offset, k), self.base, frequencies=self.frequencies)
        scale = self.attention_scale
        if scale != 1.0:  # YaRN: q . k grows by scale**2, a lower softmax temperature
            q, k = q * scale, k * scale
        return q, k

    def extra_repr(self) -> str:
        return f"d_k={self.d_k}, base={self.base:g}"


def _from(offset: int, x: torch.Tensor) -> torch.Tensor | None:
    """Positions ``offset .. offset + L - 1`` of the rows of ``x (..., L, d)``; None (the
    default ``0 .. L - 1``) without an offset."""
    if offset == 0:
        return None
    return torch.arange(offset, offset + x.shape[-2], device=x.device)
