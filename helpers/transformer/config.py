"""The configuration every model of the course takes: :class:`TransformerConfig`.

Sizes, dropout, the position scheme and the per-layer options (``nope_layers``; position by
layer type, spelled as ``transformers`` spells it: ``layer_types``, ``rope_parameters``), checked
once when made. :mod:`helpers.transformer.models` and :mod:`helpers.transformer.reference`
build from it (``_configured`` merges keyword options into one).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields, replace

from .._checks import require_bool, require_choice, require_int, require_positive_float
from ..encodings import (
    PositionScheme,
    QueryTemperature,
    RotaryPositionalAttention,
    require_scheme,
)
from .layers import _require_layer_args
from .per_layer import LAYER_TYPES, layer_frequencies

__all__ = ["TransformerConfig"]


@dataclass(frozen=True, kw_only=True)
class TransformerConfig:
    """The sizes and options of a :class:`Transformer`, :class:`DecoderOnlyTransformer` or
    :class:`~helpers.transformer.TorchReferenceTransformer`, checked once when made (a bad value
    raises here, naming the argument). Fields are given by name; the defaults below are the only
    ones: every model takes ``TransformerConfig(...)``, or the same keywords, which build one.

    ``positional``: a name in ``helpers.encodings.POSITION_SCHEMES``; ``relative_max_distance``:
    the clipping distance of ``"relative"``; ``tie_embeddings``: share the embedding matrices
    with the output projection (paper, section 3.4); ``nope_layers``: the indices of the layers
    whose self-attention gets no position (NoPE layers, e.g. every fourth one as in Llama 4 and
    SmolLM3: ``tuple(range(3, num_layers, 4))``), for schemes that enter the attention (rotary,
    relative). Per-layer options live here, never in a model's signature: ``layer_args(i)``
    is what layer ``i`` is built with. Used in notebooks 10, 12, 15 and 17.

    Position chosen per layer *type*, spelled as ``transformers`` spells it (notebook 18, for
    :class:`DecoderOnlyTransformer` with ``positional="rotary"``): ``layer_types``, one of
    ``"sliding_attention"``, ``"chunked_attention"``, ``"full_attention"`` per layer;
    ``rope_parameters``, layer type -> ``{"rope_type": "default" | "proportional",
    "rope_theta": b, "partial_rotary_factor": p}`` or ``None`` (that type has no position:
    NoPE); ``sliding_window`` / ``attention_chunk_size``: the keys a sliding / chunked layer
    sees; ``attn_temperature_tuning``: Llama 4's query temperature on the NoPE layers, with
    ``floor_scale`` and ``attn_scale`` (:class:`~helpers.encodings.QueryTemperature`). Without
    ``layer_types`` these must keep their defaults (they would do nothing).
    """

    d_model: int = 64
    num_heads: int = 4
    num_layers: int = 2
    d_ff: int = 256
    dropout: float = 0.1
    max_len: int = 512
    positional: str = "sinusoidal"
    norm_first: bool = False
    relative_max_distance: int = 16
    tie_embeddings: bool = False
    nope_layers: tuple[int, ...] = ()
    layer_types: tuple[str, ...] | None = None
    rope_parameters: Mapping[str, Mapping | None] | None = None
    sliding_window: int | None = None
    attention_chunk_size: int | None = None
    attn_temperature_tuning: bool = False
    floor_scale: float = 8192.0
    attn_scale: float = 0.1

    def __post_init__(self) -> None:
        _require_layer_args(self.d_model, self.num_heads, self.d_ff, self.dropout, False)
        require_int("num_layers", self.num_layers, minimum=1)
        require_int("max_len", self.max_len, minimum=1)
        require_scheme(self.positional, self.d_model, self.num_heads)
        require_bool("norm_first", self.norm_first)
        require_int("relative_max_distance", self.relative_max_distance, minimum=1)
        require_bool("tie_embeddings", self.tie_embeddings)
        object.__setattr__(self, "nope_layers", self._checked_nope_layers())
        self._check_layer_types()

    def _checked_nope_layers(self) -> tuple[int, ...]:
        """``nope_layers`` as a sorted tuple of distinct layer indices, or a clear error."""
        layers = self.nope_layers
        if isinstance(layers, (str, bytes)) or not isinstance(layers, (tuple, list, range)):
            raise TypeError(f"nope_layers must be a tuple of layer indices, got {layers!r}")
        for index in layers:
            require_int("nope_layers[i]", index, minimum=0)
            if index >= self.num_layers:
                raise ValueError(
                    f"nope_layers must hold layer indices < num_layers={self.num_layers}, "
                    f"got {index}"
                )
        if layers and self.scheme.attention is None:
            raise ValueError(
                f"nope_layers takes position out of some self-attentions, so positional must "
                f"enter the attention (rotary, relative), got positional={self.positional!r}"
            )
        return tuple(sorted(set(layers)))

    def _check_layer_types(self) -> None:
        """Check the per-layer-type fields; store ``layer_types`` as a tuple and
        ``rope_parameters`` as a copy (layer type -> dict or None)."""
        require_bool("attn_temperature_tuning", self.attn_temperature_tuning)
        require_positive_float("floor_scale", self.floor_scale)
        require_positive_float("attn_scale", self.attn_scale)
        types = self.layer_types
        if types is None:
            self._require_no_per_layer_options()
            return
        if isinstance(types, (str, bytes)) or not isinstance(types, (tuple, list)):
            raise TypeError(f"layer_types must be a tuple of layer types, got {types!r}")
        if len(types) != self.num_layers:
            raise ValueError(
                f"layer_types must name one type per layer (num_layers={self.num_layers}), "
                f"got {len(types)}: {tuple(types)!r}"
            )
        for i, kind in enumerate(types):
            require_choice(f"layer_types[{i}]", kind, LAYER_TYPES)
        if self.positional != "rotary":
            raise ValueError(
                "layer_types gives each layer rotary or no position inside its attention, so "
                f"positional must be 'rotary', got positional={self.positional!r}"
            )
        if self.nope_layers:
            raise ValueError(
                "give NoPE layers either as nope_layers or as a layer type whose "
                f"rope_parameters is None, not both: nope_layers={self.nope_layers}"
            )
        object.__setattr__(self, "rope_parameters", self._checked_rope_parameters(types))
        for kind, name in (
            ("sliding_attention", "sliding_window"),
            ("chunked_attention", "attention_chunk_size"),
        ):
            size = getattr(self, name)
            if kind in types:
                require_int(name, size, minimum=1)
            elif size is not None:
                raise ValueError(f"{name}={size} is set but no layer is {kind!r}")
        object.__setattr__(self, "layer_types", tuple(types))

    def _require_no_per_layer_options(self) -> None:
        """Without ``layer_types`` the per-layer-type options would do nothing: refuse them."""
        given = {
            "rope_parameters": self.rope_parameters is not None,
            "sliding_window": self.sliding_window is not None,
            "attention_chunk_size": self.attention_chunk_size is not None,
            "attn_temperature_tuning": self.attn_temperature_tuning,
        }
        unused = [name for name, set_ in given.items() if set_]
        if unused:
            raise ValueError(
                f"{', '.join(unused)} set without layer_types: they give each layer type its "
                "position, so give layer_types too (one type per layer)"
            )

    def _checked_rope_parameters(self, types) -> dict:
        """``rope_parameters`` for every type in ``types``, each checked and copied."""
        parameters = self.rope_parameters
        if not isinstance(parameters, Mapping):
            raise TypeError(
                "rope_parameters must map each layer type to its rotary parameters (or None), "
                f"got {parameters!r}"
            )
        copied = {}
        for kind in dict.fromkeys(types):
            if kind not in parameters:
                raise ValueError(
                    f"rope_parameters has no entry for layer type {kind!r}; give its rotary "
                    "parameters, or None for no position"
                )
            layer_frequencies(parameters[kind], self.d_model // self.num_heads)  # checks them
            copied[kind] = None if parameters[kind] is None else dict(parameters[kind])
        return copied

    def layer_span(self, index: int) -> tuple[str, int] | None:
        """Which keys layer ``index`` sees besides the causal rule: ``("sliding", window)``,
        ``("chunked", chunk)``, or ``None`` (every earlier key)."""
        index = require_int("index", index, minimum=0, maximum=self.num_layers - 1)
        kind = None if self.layer_types is None else self.layer_types[index]
        if kind == "sliding_attention":
            return ("sliding", self.sliding_window)
        if kind == "chunked_attention":
            return ("chunked", self.attention_chunk_size)
        return None

    def _layer_position(self, index: int):
        """Layer ``index``'s position builder from its type: rotary with its type's
        ``rope_parameters``, or ``None`` (NoPE), or Llama 4's query temperature."""
        parameters = self.rope_parameters[self.layer_types[index]]
        if parameters is None:
            if not self.attn_temperature_tuning:
                return None
            return lambda d_k: QueryTemperature(self.floor_scale, self.attn_scale)

        def rotary(d_k: int) -> RotaryPositionalAttention:
            module = RotaryPositionalAttention(d_k, float(parameters.get("rope_theta", 10000.0)))
            if parameters.get("rope_type", "default") != "default":  # e.g. proportional
                module.set_frequencies(layer_frequencies(parameters, d_k))
            return module

        return rotary

    @property
    def scheme(self) -> PositionScheme:
        """The registry entry of ``positional``."""
        return require_scheme(self.positional, self.d_model, self.num_heads)

    def layer_args(self, index: int = 0) -> dict:
        """What layer ``index`` of the model is built with, its self-attention's position
        included (none in the ``nope_layers``)."""
        index = require_int("index", index, minimum=0, maximum=self.num_layers - 1)
        build = self.scheme.attention  # None: position does not enter the attention
        nope = index in self.nope_layers
        position = None if build is None or nope else lambda d_k: build(d_k, self)
        if self.layer_types is not None:  # position by layer type (notebook 18)
            position = self._layer_position(index)
        return {
            "d_model": self.d_model,
            "num_heads": self.num_heads,
            "d_ff": self.d_ff,
            "dropout": self.dropout,
            "norm_first": self.norm_first,
            "position": position,
        }


_FIELDS = tuple(f.name for f in fields(TransformerConfig))


def _configured(config: TransformerConfig | None, options: dict) -> TransformerConfig:
    """The model's configuration: ``config`` (default: ``TransformerConfig()``) with the keyword
    ``options`` replacing its fields; checked by ``TransformerConfig``."""
    if config is not None and not isinstance(config, TransformerConfig):
        raise TypeError(
            f"config must be a TransformerConfig or None, got {type(config).__name__} "
            f"{config!r} (give sizes by name, e.g. d_model=64, or as TransformerConfig(...))"
        )
    unknown = sorted(set(options) - set(_FIELDS))
    if unknown:
        raise TypeError(
            f"unknown model option(s) {', '.join(unknown)}: expected fields of "
            f"TransformerConfig ({', '.join(_FIELDS)})"
        )
    if config is None:
        return TransformerConfig(**options)
    return replace(config, **options) if options else config
