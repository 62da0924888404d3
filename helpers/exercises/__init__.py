"""Exercise checkers with instant feedback.

Each ``check_*`` function takes the learner's function, runs it on hidden cases, prints a
verdict (with the first difference and a hint on failure) and returns True only when every
case passes. Call it with your function, e.g. ``check_sinusoidal(my_encoding)``.
"""

# Each module lists its checkers in ``__all__``; the package re-exports exactly those.
from . import (
    attention,
    encodings,
    graph,
    length_extrapolation,
    long_context,
    order_blind,
    per_layer,
    production,
    relative_rotary,
    rotary_microscope,
    transformer,
)
from .attention import *  # noqa: F403
from .encodings import *  # noqa: F403
from .graph import *  # noqa: F403
from .length_extrapolation import *  # noqa: F403
from .long_context import *  # noqa: F403
from .order_blind import *  # noqa: F403
from .per_layer import *  # noqa: F403
from .production import *  # noqa: F403
from .relative_rotary import *  # noqa: F403
from .rotary_microscope import *  # noqa: F403
from .transformer import *  # noqa: F403

__all__ = [
    *order_blind.__all__,
    *encodings.__all__,
    *relative_rotary.__all__,
    *length_extrapolation.__all__,
    *long_context.__all__,
    *graph.__all__,
    *attention.__all__,
    *transformer.__all__,
    *production.__all__,
    *rotary_microscope.__all__,
    *per_layer.__all__,
]
