"""Positional encodings: what the course builds, one topic per file.

- ``sinusoidal``: the paper's fixed encoding, its torch module and the offset (rotation) matrix.
- ``naive``: the schemes a learner tries first, and the four criteria that judge them.
- ``learned``, ``relative``, ``rotary``, ``alibi``: the modern alternatives (notebooks 11-12).

Everything public is re-exported here, so notebooks write ``from helpers.encodings import ...``.
"""

from .embedding import POSITIONAL_KINDS, TokenAndPositionEmbedding
from .learned import LearnedPositionalEmbedding
from .sinusoidal import (
    SinusoidalPositionalEncoding,
    frequencies,
    offset_matrix,
    sinusoidal_encoding,
)

__all__ = [
    "frequencies",
    "sinusoidal_encoding",
    "SinusoidalPositionalEncoding",
    "offset_matrix",
    "LearnedPositionalEmbedding",
    "TokenAndPositionEmbedding",
    "POSITIONAL_KINDS",
]
