"""The Transformer of Vaswani et al. (2017), assembled from the course's parts, batch first.

Where to look:

    layers.py     FeedForward, EncoderLayer, DecoderLayer (residual connections, pre-/post-LN)
    config.py     TransformerConfig: sizes, scheme, per-layer position, checked once
    models.py     Transformer, DecoderOnlyTransformer, count_parameters (TransformerConfig re-exported)
    caches.py     WindowedKVCache: sink tokens plus a window, keys at their slot or text position
    decoding.py   greedy_decode, generate (key/value caches), set_rotary_scaling
    mla.py        DecoupledRotaryMLA (DeepSeek's latent attention), cache bytes per token
    per_layer.py  PerLayerAttention (one layer of any 2025-2026 rule), layer_frequencies
    reference.py  TorchReferenceTransformer: torch.nn.Transformer behind the same interface

Every name is importable from here: ``from helpers.transformer import Transformer``.
"""

from . import caches, decoding, layers, mla, models, per_layer, reference
from .caches import *  # noqa: F403
from .decoding import *  # noqa: F403
from .layers import *  # noqa: F403
from .mla import *  # noqa: F403
from .models import *  # noqa: F403
from .per_layer import *  # noqa: F403
from .reference import *  # noqa: F403

__all__ = [
    *layers.__all__,
    *caches.__all__,
    *models.__all__,
    *reference.__all__,
    *decoding.__all__,
    *per_layer.__all__,
    *mla.__all__,
]
