"""Positional encodings: what the course builds, one topic per file.

- ``sinusoidal``: the paper's fixed encoding, its torch module and the offset (rotation) matrix.
- ``naive``: the schemes a learner tries first, and the four criteria that judge them.
- ``learned``, ``relative``, ``rotary``, ``alibi``: the modern alternatives (notebooks 11-12).
- ``rotary_scaling``: rotary frequencies stretched to longer contexts (notebooks 15, 17).
- ``mrope``: rotary with three position ids for text, images and video (notebook 16).
- ``per_layer``: the spectra and the query temperature of the 2025-2026 models (notebook 18).
- ``tmrope``: Qwen2.5-Omni's time-aligned ids for video with its audio (notebook 18).
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

# Each module lists its public names in ``__all__``; the package re-exports exactly those.
from . import (
    alibi,
    base,
    embedding,
    graph,
    learned,
    mrope,
    naive,
    per_layer,
    registry,
    relative,
    rotary,
    rotary_scaling,
    sinusoidal,
    sinusoidal_2d,
    tmrope,
)
from .alibi import *  # noqa: F403
from .base import *  # noqa: F403
from .embedding import *  # noqa: F403
from .graph import *  # noqa: F403
from .learned import *  # noqa: F403
from .mrope import *  # noqa: F403
from .naive import *  # noqa: F403
from .per_layer import *  # noqa: F403
from .registry import *  # noqa: F403
from .relative import *  # noqa: F403
from .rotary import *  # noqa: F403
from .rotary_scaling import *  # noqa: F403
from .sinusoidal import *  # noqa: F403
from .sinusoidal_2d import *  # noqa: F403
from .tmrope import *  # noqa: F403

__all__ = [
    *sinusoidal.__all__,
    *learned.__all__,
    *embedding.__all__,
    *naive.__all__,
    *rotary.__all__,
    *rotary_scaling.__all__,
    *alibi.__all__,
    *relative.__all__,
    *sinusoidal_2d.__all__,
    *base.__all__,
    *registry.__all__,
    *graph.__all__,
    *mrope.__all__,
    *per_layer.__all__,
    *tmrope.__all__,
]
