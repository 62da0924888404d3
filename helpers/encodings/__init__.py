"""Positional encodings: what the course builds, one topic per file.

- ``sinusoidal``: the paper's fixed encoding, its torch module and the offset (rotation) matrix.
- ``naive``: the schemes a learner tries first, and the four criteria that judge them.
- ``learned``, ``relative``, ``rotary``, ``alibi``: the modern alternatives (notebooks 11-12).
- ``rotary_scaling``: rotary frequencies stretched to longer contexts (notebook 15).

Everything public is re-exported here, so notebooks write ``from helpers.encodings import ...``.
"""

from .alibi import alibi_bias, alibi_slopes
from .embedding import POSITIONAL_KINDS, TokenAndPositionEmbedding
from .graph import laplacian_pe, random_walk_pe, shortest_path_distances
from .learned import LearnedPositionalEmbedding
from .naive import (
    CRITERIA,
    binary_encoding,
    bounded_and_length_independent,
    bounded_decreasing_encoding,
    consistent_distance,
    deterministic,
    format_score_table,
    index_encoding,
    normalized_index_encoding,
    random_encoding,
    score_schemes,
    single_sine_encoding,
    unique_per_position,
)
from .relative import (
    RelativePositionEmbedding,
    relative_positions,
    relative_scores,
    relative_values,
)
from .rotary import (
    ROTARY_LAYOUTS,
    apply_rotary,
    interleaved_to_half_permutation,
    rotary_frequencies,
    rotate_half,
    rotate_interleaved,
)
from .rotary_scaling import ROTARY_SCALINGS, scaled_rotary_frequencies
from .sinusoidal import (
    SinusoidalPositionalEncoding,
    frequencies,
    offset_matrix,
    sinusoidal_encoding,
)
from .sinusoidal_2d import sinusoidal_encoding_2d

__all__ = [
    "frequencies",
    "sinusoidal_encoding",
    "SinusoidalPositionalEncoding",
    "offset_matrix",
    "LearnedPositionalEmbedding",
    "TokenAndPositionEmbedding",
    "POSITIONAL_KINDS",
    "index_encoding",
    "normalized_index_encoding",
    "bounded_decreasing_encoding",
    "binary_encoding",
    "single_sine_encoding",
    "random_encoding",
    "unique_per_position",
    "consistent_distance",
    "bounded_and_length_independent",
    "deterministic",
    "CRITERIA",
    "score_schemes",
    "format_score_table",
    "apply_rotary",
    "rotate_half",
    "rotate_interleaved",
    "rotary_frequencies",
    "interleaved_to_half_permutation",
    "ROTARY_LAYOUTS",
    "scaled_rotary_frequencies",
    "ROTARY_SCALINGS",
    "alibi_slopes",
    "alibi_bias",
    "relative_positions",
    "relative_scores",
    "relative_values",
    "RelativePositionEmbedding",
    "sinusoidal_encoding_2d",
    "laplacian_pe",
    "random_walk_pe",
    "shortest_path_distances",
]
