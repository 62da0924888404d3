"""Exercise checkers with instant feedback.

Each ``check_*`` function takes the learner's function, runs it on hidden cases, prints a
verdict (with the first difference and a hint on failure) and returns True only when every
case passes. Call it with your function, e.g. ``check_sinusoidal(my_encoding)``.
"""

from .attention import check_attention, check_causal_mask, check_padding_mask
from .encodings import (
    check_binary_encoding,
    check_offset_matrix,
    check_sinusoidal,
    check_token_and_position,
    check_wavelengths,
)
from .graph import check_laplacian_pe, check_random_walk_pe
from .modern import (
    check_accuracy_by_position,
    check_alibi_slopes,
    check_kv_cache_bytes,
    check_ntk_frequencies,
    check_relative_positions,
    check_rotary,
)
from .transformer import (
    check_greedy_decode,
    check_layer_norm,
    check_noam_lr,
    check_smoothing_floor,
)

__all__ = [
    "check_sinusoidal",
    "check_binary_encoding",
    "check_wavelengths",
    "check_offset_matrix",
    "check_token_and_position",
    "check_relative_positions",
    "check_rotary",
    "check_alibi_slopes",
    "check_accuracy_by_position",
    "check_ntk_frequencies",
    "check_kv_cache_bytes",
    "check_laplacian_pe",
    "check_random_walk_pe",
    "check_attention",
    "check_causal_mask",
    "check_padding_mask",
    "check_layer_norm",
    "check_smoothing_floor",
    "check_noam_lr",
    "check_greedy_decode",
]
