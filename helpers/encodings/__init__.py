"""Positional encodings: what the course builds, one topic per file.

- ``sinusoidal``: the paper's fixed encoding, its torch module and the offset (rotation) matrix.
- ``naive``: the schemes a learner tries first, and the four criteria that judge them.
- ``learned``, ``relative``, ``rotary``, ``alibi``: the modern alternatives (notebooks 11-12).
- ``rotary_scaling``: rotary frequencies stretched to longer contexts (notebook 15).
- ``embedding``: token embedding plus position, the first layer of the models.
- ``base``: what schemes share (:class:`PositionalAttention`, the hooks inside attention).
- ``registry``: :data:`POSITION_SCHEMES`, one entry per scheme the models take as
  ``positional=``: where it enters, its constraints, its constructor.

Adding a scheme the models can use, step by step:

1. Write ``encodings/<name>.py`` with what the scheme builds, by where it enters (see
   ``registry``'s docstring): a module ``forward(x, offset)`` that adds position to the
   embeddings; or a :class:`PositionalAttention` subclass overriding ``rotate``, ``score_bias``
   and/or ``value_term``; or a function returning an additive score bias. Positions of new
   tokens start at ``offset`` (key/value cache); a bias may be given per example.
2. Add one :class:`PositionScheme` entry to ``POSITION_SCHEMES`` in ``registry.py``: name,
   where it enters, its constraints (``even_d_model``, ``even_d_k``, ``bounded``) and its
   constructor. ``Transformer``, ``DecoderOnlyTransformer`` and ``TokenAndPositionalEmbedding``
   then accept ``positional="<name>"``; nothing else changes.
3. Re-export the new public names below, and write ``tests/test_encodings_<name>.py``: the
   formula against a hand computation, the bad inputs, and (``tests/test_kv_cache.py`` runs
   every registered scheme) cached decoding equal to uncached.

Everything public is re-exported here, so notebooks write ``from helpers.encodings import ...``.
"""

from .alibi import alibi_bias, alibi_slopes
from .base import PositionalAttention
from .embedding import TokenAndPositionalEmbedding
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
from .registry import POSITION_SCHEMES, PositionScheme, require_scheme
from .relative import (
    RelativePositionalAttention,
    RelativePositionalEmbedding,
    relative_positions,
    relative_scores,
    relative_values,
)
from .rotary import (
    ROTARY_LAYOUTS,
    RotaryPositionalAttention,
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
    "TokenAndPositionalEmbedding",
    "POSITION_SCHEMES",
    "PositionScheme",
    "require_scheme",
    "PositionalAttention",
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
    "RotaryPositionalAttention",
    "scaled_rotary_frequencies",
    "ROTARY_SCALINGS",
    "alibi_slopes",
    "alibi_bias",
    "relative_positions",
    "relative_scores",
    "relative_values",
    "RelativePositionalEmbedding",
    "RelativePositionalAttention",
    "sinusoidal_encoding_2d",
    "laplacian_pe",
    "random_walk_pe",
    "shortest_path_distances",
]
