"""Argument checks (``require_*``) shared by every public helper.

They are named ``require_*`` so that they are never mistaken for the learners' checkers
(``helpers.exercises.check_*``).

Each check raises ``TypeError`` for a value of the wrong kind and ``ValueError`` for a value of
the right kind but out of range, and the message always names the argument, the bad value and
what was expected, e.g. ``d_model must be an even positive integer, got 7``.
"""

from __future__ import annotations

import math
import numbers

import torch

__all__ = [
    "require_bool",
    "require_int",
    "require_even",
    "require_positive_float",
    "require_probability",
    "require_choice",
    "require_tensor",
    "require_device",
    "require_same_dtype",
    "require_ids",
]


def require_bool(name: str, value: object) -> bool:
    """Return ``value`` if it is a bool (``True``/``False``, not 0/1 or a string)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be a bool, got {value!r}")
    return value


def require_int(
    name: str, value: object, minimum: int | None = None, maximum: int | None = None
) -> int:
    """Return ``value`` if it is an integer (not a bool) in ``[minimum, maximum]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {value!r} of type {type(value).__name__}")
    if minimum is not None and value < minimum:
        if minimum == 1:
            expected = "a positive integer"
        elif minimum == 0:
            expected = "a non-negative integer"
        else:
            expected = f"an integer >= {minimum}"
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    if maximum is not None and value > maximum:
        raise ValueError(f"{name} must be an integer <= {maximum}, got {value!r}")
    return int(value)


def require_even(name: str, value: object) -> int:
    """Return ``value`` if it is an even positive integer (sin/cos or rotary pairs need one)."""
    value = require_int(name, value, minimum=1)
    if value % 2:
        raise ValueError(
            f"{name} must be an even positive integer (dimensions come in pairs), got {value}"
        )
    return value


def require_positive_float(name: str, value: object) -> float:
    """Return ``value`` as a float if it is a real number > 0."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {value!r} of type {type(value).__name__}"
        )
    if not 0 < value < math.inf:  # also rejects NaN
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


def require_probability(name: str, value: object) -> float:
    """Return ``value`` as a float if it lies in [0, 1) (a dropout rate, a smoothing factor)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"{name} must be a real number, got {value!r} of type {type(value).__name__}"
        )
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must be in [0, 1), got {value!r}")
    return float(value)


def require_choice(name: str, value: object, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of the strings in ``choices``."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a string, one of {choices}, got {value!r}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {choices}, got {value!r}")
    return value


def require_tensor(
    name: str,
    value: object,
    *,
    ndim: int | tuple[int, ...] | None = None,
    min_ndim: int | None = None,
    floating: bool = False,
    integer: bool = False,
    boolean: bool = False,
) -> torch.Tensor:
    """Return ``value`` if it is a ``torch.Tensor`` of the expected rank and dtype family."""
    if not isinstance(value, torch.Tensor):
        raise TypeError(f"{name} must be a torch.Tensor, got {type(value).__name__}")
    if ndim is not None:
        allowed = (ndim,) if isinstance(ndim, int) else ndim
        if value.ndim not in allowed:
            want = " or ".join(str(n) for n in allowed)
            raise ValueError(f"{name} must have {want} dimensions, got shape {tuple(value.shape)}")
    if min_ndim is not None and value.ndim < min_ndim:
        raise ValueError(
            f"{name} must have at least {min_ndim} dimensions, got shape {tuple(value.shape)}"
        )
    if floating and not value.is_floating_point():
        raise TypeError(f"{name} must be a floating-point tensor, got dtype {value.dtype}")
    if integer and (value.is_floating_point() or value.is_complex() or value.dtype == torch.bool):
        raise TypeError(
            f"{name} must be an integer (e.g. torch.long) tensor, got dtype {value.dtype}"
        )
    if boolean and value.dtype != torch.bool:
        raise TypeError(
            f"{name} must be a boolean tensor (True = may attend), got dtype {value.dtype}"
        )
    return value


def require_device(name: str, value: object) -> torch.device | None:
    """Return ``value`` as a ``torch.device`` (None stays None) if this machine has it."""
    if value is None:
        return None
    if not isinstance(value, (str, torch.device)):
        raise TypeError(
            f"{name} must be a torch.device or a string such as 'cpu', got {type(value).__name__}"
        )
    try:
        device = torch.device(value)
    except RuntimeError:
        raise ValueError(
            f"{name} must name a torch device such as 'cpu', 'cuda' or 'mps', got {value!r}"
        ) from None
    available = {
        "cuda": torch.cuda.is_available(),
        "mps": getattr(torch.backends, "mps", None) is not None
        and torch.backends.mps.is_available(),
    }
    if not available.get(device.type, True):
        raise ValueError(f"{name} is {value!r}, but this machine has no {device.type} device")
    return device


def require_same_dtype(name: str, value: torch.Tensor, owner: str, reference: torch.Tensor) -> None:
    """Raise ``TypeError`` unless ``value`` has the dtype of ``reference`` (e.g. a weight)."""
    if value.dtype != reference.dtype:
        raise TypeError(
            f"{name} must have the dtype of {owner}, {reference.dtype}, got {value.dtype}: "
            f"convert one of them, e.g. {name}.to({reference.dtype})"
        )


def require_ids(name: str, value: torch.Tensor, vocab_size: int) -> torch.Tensor:
    """Return ``value`` if its token ids all lie in ``[0, vocab_size)``."""
    if value.numel() and (value.min() < 0 or value.max() >= vocab_size):
        raise ValueError(
            f"{name} must lie in [0, vocab_size={vocab_size}), got values from "
            f"{int(value.min())} to {int(value.max())}"
        )
    return value


def fits_into(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """True if a tensor of ``shape`` broadcasts to ``target`` without enlarging it.

    Written out by hand: ``torch.broadcast_shapes`` costs about 50 us a call, and attention
    runs this on every forward.
    """
    return len(shape) <= len(target) and all(
        s in (1, t) for s, t in zip(reversed(shape), reversed(target), strict=False)
    )
