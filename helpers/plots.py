"""Plotting with one look across the course.

Two colour maps, both readable with colour-vision deficiency: a diverging map centred on 0 for
encodings (values in [-1, 1]) and a perceptually uniform sequential map for attention weights.
Every function returns the data it drew, so tests and notebook checks can assert a figure's
numbers (nbval compares text, not images).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import FancyBboxPatch, Rectangle

from ._checks import require_bool, require_choice, require_int
from ._convert import as_numpy

__all__ = [
    "ENCODING_CMAP",
    "ATTENTION_CMAP",
    "set_style",
    "plot_encoding",
    "plot_attention",
    "draw_transformer",
    "DIAGRAM_VARIANTS",
    "DIAGRAM_HIGHLIGHTS",
]

ENCODING_CMAP = "RdBu_r"  # diverging, centred on 0: blue negative, red positive
ATTENTION_CMAP = "viridis"  # sequential, perceptually uniform


def set_style(dpi: int = 80) -> None:
    """Course-wide figure style: readable on a projector, light in a committed notebook.

    Used in the set-up cell of every lesson (notebooks 00 to 15).
    """
    dpi = require_int("dpi", dpi, minimum=1)
    plt.rcParams.update(
        {
            "figure.figsize": (7.0, 3.6),
            "figure.dpi": dpi,
            "savefig.dpi": dpi,
            "font.size": 11,
            "axes.titlesize": 12,
            "axes.labelsize": 11,
            "axes.grid": False,
            "image.cmap": ATTENTION_CMAP,
        }
    )


def _check_labels(name: str, labels: Sequence[str] | None, axis: str, size: int) -> None:
    """Tick labels, when given, must be one per row (``L_q``) or column (``L_k``) of the weights."""
    if labels is not None and len(labels) != size:
        raise ValueError(
            f"{name} must have one label per {axis}: length must equal {axis}={size}, "
            f"got {len(labels)} labels {list(labels)!r}"
        )


def plot_encoding(
    pe,
    ax: plt.Axes | None = None,
    title: str = "Positional encoding",
    xlabel: str = "dimension i",
    ylabel: str = "position t",
) -> np.ndarray:
    """Heatmap of an encoding table ``(num_positions, d_model)``; returns the array drawn.

    Used in notebook 03, and by :func:`~helpers.widgets.explore_encoding` (notebooks 03 and 13).
    """
    data = as_numpy(pe)
    if data.ndim != 2:
        raise ValueError(f"pe must be a 2-D table (positions, dimensions), got shape {data.shape}")
    if ax is None:
        _, ax = plt.subplots()
    image = ax.imshow(
        data, cmap=ENCODING_CMAP, vmin=-1, vmax=1, aspect="auto", interpolation="nearest"
    )
    ax.set(title=title, xlabel=xlabel, ylabel=ylabel)
    ax.figure.colorbar(image, ax=ax, label="value")
    return data


def plot_attention(
    weights,
    queries: Sequence[str] | None = None,
    keys: Sequence[str] | None = None,
    ax: plt.Axes | None = None,
    title: str = "Attention weights",
    colorbar: bool = True,
) -> np.ndarray:
    """Heatmap of attention weights ``(L_q, L_k)`` with optional token labels.

    Used in notebooks 01, 06, 07, 10 and 13.
    """
    data = as_numpy(weights)
    if data.ndim != 2:
        raise ValueError(f"weights must be 2-D (L_q, L_k), got shape {data.shape}")
    _check_labels("queries", queries, "L_q", data.shape[0])
    _check_labels("keys", keys, "L_k", data.shape[1])
    if ax is None:
        _, ax = plt.subplots(figsize=(4.2, 3.6))
    image = ax.imshow(data, cmap=ATTENTION_CMAP, vmin=0, vmax=1, interpolation="nearest")
    ax.set(title=title, xlabel="key", ylabel="query")
    if keys is not None:
        ax.set_xticks(range(len(keys)), labels=list(keys), rotation=90)
    if queries is not None:
        ax.set_yticks(range(len(queries)), labels=list(queries))
    if colorbar:
        ax.figure.colorbar(image, ax=ax, label="weight")
    return data


# --- The architecture diagram -------------------------------------------------------------------

DIAGRAM_VARIANTS = ("encoder-decoder", "decoder-only")
DIAGRAM_HIGHLIGHTS = (
    "embedding",
    "positional",
    "masks",
    "self_attention",
    "masked_self_attention",
    "cross_attention",
    "feed_forward",
    "residual_norm",
    "dropout",
    "output",
)
# Okabe-Ito colours, lightened: distinguishable with colour-vision deficiency, dark text on top.
_FILL = {
    "input": "#FFFFFF",
    "embedding": "#DDDDDD",
    "positional": "#F5CB7A",
    "dropout": "#FFFFFF",
    "self_attention": "#A9D8F2",
    "masked_self_attention": "#A9D8F2",
    "cross_attention": "#7FB8DA",
    "feed_forward": "#9ED9C4",
    "add_norm": "#F7F1A8",
    "layer_norm": "#F7F1A8",
    "add": "#F7F1A8",
    "output_projection": "#E7BCD5",
    "softmax": "#E7BCD5",
}
_HIGHLIGHT_KINDS = {
    "embedding": {"embedding"},
    "positional": {"positional"},
    "masks": {"self_attention", "masked_self_attention", "cross_attention"},
    "self_attention": {"self_attention"},
    "masked_self_attention": {"masked_self_attention"},
    "cross_attention": {"cross_attention"},
    "feed_forward": {"feed_forward"},
    "residual_norm": {"add_norm", "layer_norm", "add"},
    "dropout": {"dropout"},
    "output": {"output_projection", "softmax"},
}
_EDGE_HIGHLIGHT = "#D55E00"  # Okabe-Ito vermillion
_MASKS = {
    "self_attention": "source padding",
    "masked_self_attention": "target padding + causal",
    "cross_attention": "source padding",
}
_DECODER_ONLY_MASK = "padding + causal"
_ROW = 0.8  # height of a box, in data units
_THIN = 0.42  # height of a dropout box
_TALL = 1.15  # height of an attention box (two lines: name and mask)
_GAP = 0.42
_WIDTH = 4.0
_COLUMN = 6.0  # distance between the centres of the two stacks


@dataclass(frozen=True)
class DiagramBox:
    """One drawn box: ``name`` is unique (``"decoder.cross_attention"``), ``kind`` is its role."""

    name: str
    kind: str
    label: str
    stack: str
    x: float  # centre
    y: float  # bottom edge
    width: float
    height: float
    mask: str | None = None  # the mask an attention box uses, in words
    highlighted: bool = False


@dataclass(frozen=True)
class DiagramArrow:
    """One drawn arrow between two boxes: ``kind`` is "flow", "residual" or "memory"."""

    start: str
    end: str
    kind: str
    label: str = ""


def _sublayer_rows(part: str, norm_first: bool, mask: str | None) -> list[tuple[str, str, str]]:
    """(part name, kind, label) rows of one sublayer with its dropout and residual, bottom to top."""
    names = {
        "self_attention": "Self-attention",
        "masked_self_attention": "Masked self-attention",
        "cross_attention": "Cross-attention",
        "feed_forward": "Feed-forward (position-wise)",
    }
    kind = "self_attention" if part == "decoder_self_attention" else part
    label = names[kind] + (f"\nmask: {mask}" if mask else "")
    sub = (part, kind, label)
    drop = (f"{part}.dropout", "dropout", "dropout")
    if norm_first:
        return [
            (f"{part}.norm", "layer_norm", "LayerNorm"),
            sub,
            drop,
            (f"{part}.add", "add", "+ residual"),
        ]
    return [sub, drop, (f"{part}.add_norm", "add_norm", "+ residual, LayerNorm")]


def _stack_rows(stack: str, variant: str, norm_first: bool) -> tuple[list, list[str]]:
    """All rows of one stack, bottom to top, and the parts that make up one repeated layer."""
    if stack == "encoder":
        inputs = "source tokens"
        parts = [("self_attention", _MASKS["self_attention"]), ("feed_forward", None)]
    elif variant == "decoder-only":
        inputs = "tokens"
        parts = [("masked_self_attention", _DECODER_ONLY_MASK), ("feed_forward", None)]
    else:
        inputs = "target tokens (shifted right)"
        parts = [
            ("masked_self_attention", _MASKS["masked_self_attention"]),
            ("cross_attention", _MASKS["cross_attention"]),
            ("feed_forward", None),
        ]
    rows = [
        ("tokens", "input", inputs),
        ("embedding", "embedding", r"Token embedding $\times \sqrt{d_{model}}$"),
        ("positional", "positional", r"+ positional encoding $PE_t$"),
        ("input.dropout", "dropout", "dropout"),
    ]
    layer = []
    for part, mask in parts:
        part_rows = _sublayer_rows(part, norm_first, mask)
        rows += part_rows
        layer += [name for name, _, _ in part_rows]
    if norm_first:
        rows.append(("final_norm", "layer_norm", "final LayerNorm"))
    if stack != "encoder":
        rows += [
            ("output_projection", "output_projection", "Linear (output projection)"),
            ("softmax", "softmax", "softmax: next-token probabilities"),
        ]
    return rows, layer


def _check_diagram_args(variant, norm_first, highlight, num_layers, ax) -> int:
    """Validate ``draw_transformer``'s arguments; return ``num_layers`` as an int."""
    require_choice("variant", variant, DIAGRAM_VARIANTS)
    require_bool("norm_first", norm_first)
    num_layers = require_int("num_layers", num_layers, minimum=1)
    if highlight is not None:
        require_choice("highlight", highlight, DIAGRAM_HIGHLIGHTS)
        if variant == "decoder-only" and highlight in ("cross_attention", "self_attention"):
            raise ValueError(
                f"highlight={highlight!r} does not exist in the decoder-only variant: it has "
                "masked self-attention only; use 'masked_self_attention' or 'masks'"
            )
    if ax is not None and not isinstance(ax, plt.Axes):
        raise TypeError(f"ax must be a matplotlib Axes or None, got {type(ax).__name__}")
    return num_layers


# Where a residual branch starts: the input of a sublayer (pre-LN: of its LayerNorm).
_SUBLAYER_INPUTS = (
    "self_attention",
    "masked_self_attention",
    "cross_attention",
    "feed_forward",
    "layer_norm",
)


def _layout_stack(
    stack: str, rows: list[tuple[str, str, str]], x: float, lit: set[str]
) -> tuple[list[DiagramBox], list[DiagramArrow]]:
    """The boxes of one stack's ``rows``, bottom to top at column centre ``x``, and its arrows:
    one flow arrow between consecutive boxes, one residual arrow per addition."""
    boxes: list[DiagramBox] = []
    arrows: list[DiagramArrow] = []
    y, previous, branch = 0.0, None, None
    for part, kind, label in rows:
        height = _THIN if kind == "dropout" else _TALL if "\n" in label else _ROW
        name = f"{stack}.{part}"
        mask = label.split("mask: ")[1] if "mask: " in label else None
        boxes.append(DiagramBox(name, kind, label, stack, x, y, _WIDTH, height, mask, kind in lit))
        if previous is not None:
            arrows.append(DiagramArrow(previous, name, "flow"))
        if kind in _SUBLAYER_INPUTS and branch is None and part != "final_norm":
            branch = previous
        if kind in ("add", "add_norm"):
            arrows.append(DiagramArrow(branch, name, "residual"))
            branch = None
        previous, y = name, y + height + _GAP
    return boxes, arrows


def draw_transformer(
    variant: str = "encoder-decoder",
    norm_first: bool = False,
    highlight: str | None = None,
    num_layers: int = 6,
    ax: plt.Axes | None = None,
) -> dict:
    """Draw the Transformer's architecture and return what was drawn.

    ``variant`` is ``"encoder-decoder"`` (Vaswani et al. 2017) or ``"decoder-only"``;
    ``norm_first`` places LayerNorm before each sublayer (pre-LN) instead of after the residual
    addition (post-LN, the paper's placement); ``highlight`` emphasises one part (one of
    ``DIAGRAM_HIGHLIGHTS``, e.g. ``"positional"``, ``"masks"``, ``"cross_attention"``) and fades
    the rest. Every attention box names the mask it uses. Returns ``{"boxes": [DiagramBox],
    "arrows": [DiagramArrow], "variant", "norm_first", "highlight"}``, boxes bottom to top per
    stack. Used in notebooks 00, 05, 07, 09 and 10.
    """
    num_layers = _check_diagram_args(variant, norm_first, highlight, num_layers, ax)
    stacks = ["decoder"] if variant == "decoder-only" else ["encoder", "decoder"]
    lit = _HIGHLIGHT_KINDS[highlight] if highlight else set()
    boxes: list[DiagramBox] = []
    arrows: list[DiagramArrow] = []
    layers: dict[str, list[str]] = {}
    for column, stack in enumerate(stacks):
        rows, layers[stack] = _stack_rows(stack, variant, norm_first)
        x = 1.6 + _WIDTH / 2 + column * _COLUMN
        stack_boxes, stack_arrows = _layout_stack(stack, rows, x, lit)
        boxes += stack_boxes
        arrows += stack_arrows
    if variant == "encoder-decoder":
        top = "encoder.final_norm" if norm_first else "encoder.feed_forward.add_norm"
        arrows.append(DiagramArrow(top, "decoder.cross_attention", "memory", "keys, values"))

    _render(boxes, arrows, layers, num_layers, highlight, variant, norm_first, ax)
    return {
        "boxes": boxes,
        "arrows": arrows,
        "variant": variant,
        "norm_first": norm_first,
        "highlight": highlight,
    }


def _render(boxes, arrows, layers, num_layers, highlight, variant, norm_first, ax) -> None:
    """Draw the boxes, arrows and layer frames computed by ``draw_transformer``."""
    by_name = {box.name: box for box in boxes}
    height = max(box.y + box.height for box in boxes)
    width = _COLUMN * (len(layers) - 1) + _WIDTH + 4.0
    if ax is None:
        fig, ax = plt.subplots(figsize=(0.75 * width, 0.36 * height + 0.9))
        fig.subplots_adjust(left=0.0, right=1.0, bottom=0.0, top=1.0 - 0.8 / (0.36 * height + 0.9))
    dim = bool(highlight)
    for box in boxes:
        ax.add_patch(
            FancyBboxPatch(
                (box.x - box.width / 2, box.y),
                box.width,
                box.height,
                boxstyle="round,pad=0,rounding_size=0.12",
                facecolor=_FILL[box.kind],
                edgecolor=_EDGE_HIGHLIGHT if box.highlighted else "0.25",
                linewidth=3.0 if box.highlighted else 1.0,
                linestyle="--" if box.kind in ("dropout", "input") else "-",
                alpha=0.35 if dim and not box.highlighted else 1.0,
            )
        )
        ax.text(
            box.x,
            box.y + box.height / 2,
            box.label,
            ha="center",
            va="center",
            fontsize=9 if box.kind == "dropout" else 11,
            fontweight="bold" if box.highlighted else "normal",
            alpha=0.5 if dim and not box.highlighted else 1.0,
        )
    for arrow in arrows:
        _draw_arrow(ax, by_name[arrow.start], by_name[arrow.end], arrow, highlight)
    for column, (stack, parts) in enumerate(layers.items()):
        inside = [by_name[f"{stack}.{part}"] for part in parts]
        bottom = inside[0].y - _GAP / 2
        top = inside[-1].y + inside[-1].height + _GAP / 2
        left = inside[0].x - _WIDTH / 2 - 0.25
        right = inside[0].x + _WIDTH / 2 + 0.6
        ax.add_patch(
            Rectangle(
                (left, bottom), right - left, top - bottom, fill=False, ec="0.5", ls=":", lw=1.2
            )
        )
        outside = left - 0.1 if column == 0 else right + 0.1
        ax.text(
            outside,
            (bottom + top) / 2,
            f"{stack}\nlayer\nx {num_layers}",
            ha="right" if column == 0 else "left",
            va="center",
            fontsize=11,
        )
    placement = "pre-LN (norm_first=True)" if norm_first else "post-LN (as in Vaswani et al. 2017)"
    name = "Decoder-only" if variant == "decoder-only" else "Encoder-decoder"
    title = f"{name} Transformer, {placement}"
    if highlight:
        title += f"\nhighlighted: {highlight.replace('_', ' ')}"
    ax.set(xlim=(0, width), ylim=(-0.3, height + 0.2))
    ax.set_title(title, fontsize=13)
    ax.axis("off")


def _draw_arrow(ax, start: DiagramBox, end: DiagramBox, arrow: DiagramArrow, highlight) -> None:
    """A flow arrow goes straight up; a residual goes round the right; memory crosses over."""
    head = {"arrowstyle": "-|>", "lw": 1.3}
    if arrow.kind == "flow":
        head["color"] = "0.3"
        ax.annotate("", (end.x, end.y), (start.x, start.y + start.height), arrowprops=head)
        return
    if arrow.kind == "residual":
        colour = _EDGE_HIGHLIGHT if highlight == "residual_norm" else "0.45"
        side = start.x + start.width / 2 + 0.3
        y0, y1 = start.y + start.height + _GAP / 2, end.y + end.height / 2
        ax.plot([start.x, side, side], [y0, y0, y1], color=colour, lw=1.3)
        head["color"] = colour
        ax.annotate("", (end.x + end.width / 2, y1), (side, y1), arrowprops=head)
        return
    # memory: the encoder's output feeds the keys and values of every cross-attention
    colour = _EDGE_HIGHLIGHT if highlight in ("cross_attention", "masks") else "#0072B2"
    lift = start.y + start.height + 0.3
    middle = (start.x + end.x) / 2 + 0.3
    y1 = end.y + end.height / 2
    ax.plot(
        [start.x, start.x, middle, middle],
        [start.y + start.height, lift, lift, y1],
        color=colour,
        lw=2.2,
    )
    head.update(color=colour, lw=2.2)
    ax.annotate("", (end.x - end.width / 2, y1), (middle, y1), arrowprops=head)
    ax.text(start.x, lift + 0.1, arrow.label, color=colour, fontsize=11, ha="center", va="bottom")
