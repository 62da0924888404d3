"""The Transformer's architecture diagram, drawn from the same layer recipe as the models.

:func:`draw_transformer` lays out the encoder-decoder or decoder-only stack in post-LN or
pre-LN placement, names the mask of every attention box, can highlight one part, and returns
the boxes and arrows it drew (:class:`DiagramBox`, :class:`DiagramArrow`) so that tests check
the drawing's structure. Re-exported by :mod:`helpers.plots`.
"""

from __future__ import annotations

from dataclasses import dataclass

import matplotlib.pyplot as plt
from matplotlib.patches import FancyBboxPatch, Rectangle

from ._checks import require_bool, require_choice, require_int

__all__ = ["draw_transformer", "DIAGRAM_VARIANTS", "DIAGRAM_HIGHLIGHTS"]

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
# The diagram is laid out in ems of its text (one data unit = _FONT points), tight enough that
# its smallest text reaches 18 px on a 1280x720 slide: every label is _FONT points, a box is
# little taller than its text, a dropout box sits right on the sublayer below it.
_FONT = 13.0  # points: all text of the diagram (the title one point more)
_ROW = 1.3  # height of a box of one line
_MATH_ROW = 1.5  # a box whose label holds a formula (sqrt)
_THIN = 1.15  # height of a dropout box
_TALL = 2.4  # height of an attention box (two lines: name and mask)
_GAP = 0.45  # between boxes: room for an arrow
_HUG = 0.1  # around a dropout box: no arrow
_WIDTH = 19.5  # a box: its longest label in bold fits
_LANE = 0.65  # residual arrows run this far right of a box
_FRAME = (0.4, 1.3)  # a layer's dotted frame, beyond the box on the left and on the right
_COLUMN = 25.0  # distance between the centres of the two stacks
_SIDE_LABEL = 5.0  # room for "encoder / layer / x 6" beside a frame


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


def _box_height(kind: str, label: str) -> float:
    if kind == "dropout":
        return _THIN
    return _TALL if "\n" in label else _MATH_ROW if "$" in label else _ROW


def _layout_stack(
    stack: str, rows: list[tuple[str, str, str]], x: float, lit: set[str]
) -> tuple[list[DiagramBox], list[DiagramArrow]]:
    """The boxes of one stack's ``rows``, bottom to top at column centre ``x``, and its arrows:
    one flow arrow between consecutive boxes, one residual arrow per addition."""
    boxes: list[DiagramBox] = []
    arrows: list[DiagramArrow] = []
    y, previous, branch = 0.0, None, None
    for part, kind, label in rows:
        height = _box_height(kind, label)
        name = f"{stack}.{part}"
        mask = label.split("mask: ")[1] if "mask: " in label else None
        if previous is not None:
            y += _HUG if "dropout" in (kind, boxes[-1].kind) else _GAP
            arrows.append(DiagramArrow(previous, name, "flow"))
        boxes.append(DiagramBox(name, kind, label, stack, x, y, _WIDTH, height, mask, kind in lit))
        if kind in _SUBLAYER_INPUTS and branch is None and part != "final_norm":
            branch = previous
        if kind in ("add", "add_norm"):
            arrows.append(DiagramArrow(branch, name, "residual"))
            branch = None
        previous, y = name, y + height
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
        x = _SIDE_LABEL + _FRAME[0] + _WIDTH / 2 + column * _COLUMN
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


def _title(variant: str, norm_first: bool, highlight: str | None) -> str:
    placement = "pre-LN (norm_first=True)" if norm_first else "post-LN (as in Vaswani et al. 2017)"
    name = "Decoder-only" if variant == "decoder-only" else "Encoder-decoder"
    # beside the decoder's top, above the shorter encoder: one clause a line
    title = (
        f"{name} Transformer,\n{placement}"
        if variant != "decoder-only"
        else (f"{name} Transformer, {placement}")
    )
    if highlight:
        title += f"\nhighlighted: {highlight.replace('_', ' ')}"
    return title


def _render(boxes, arrows, layers, num_layers, highlight, variant, norm_first, ax) -> None:
    """Draw the boxes, arrows and layer frames computed by ``draw_transformer``."""
    by_name = {box.name: box for box in boxes}
    above = {a.start: by_name[a.end] for a in arrows if a.kind == "flow"}
    tops = {stack: max(b.y + b.height for b in boxes if b.stack == stack) for stack in layers}
    title = _title(variant, norm_first, highlight)
    title_height = (title.count("\n") + 1) * 1.25 * (_FONT + 1) / _FONT + 0.3
    if variant == "decoder-only":
        height = tops["decoder"] + title_height
    else:  # the title sits above the encoder and the "keys, values" label, left of the decoder
        height = max(tops["decoder"] + 0.1, tops["encoder"] + 2.2 + title_height)
    width = _COLUMN * (len(layers) - 1) + 2 * (_SIDE_LABEL + _FRAME[0]) + _WIDTH + _FRAME[1]
    if ax is None:
        inch = _FONT / 72  # one data unit: an em of the diagram's text
        fig, ax = plt.subplots(figsize=(width * inch, (height + 0.1) * inch))
        fig.subplots_adjust(left=0.0, right=1.0, bottom=0.0, top=1.0)
    dim = bool(highlight)
    for box in boxes:
        ax.add_patch(
            FancyBboxPatch(
                (box.x - box.width / 2, box.y),
                box.width,
                box.height,
                boxstyle="round,pad=0,rounding_size=0.3",
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
            fontsize=_FONT,
            linespacing=1.15,
            fontweight="bold" if box.highlighted else "normal",
            alpha=0.5 if dim and not box.highlighted else 1.0,
        )
    for arrow in arrows:
        _draw_arrow(ax, by_name[arrow.start], by_name[arrow.end], arrow, highlight, above)
    for column, (stack, parts) in enumerate(layers.items()):
        inside = [by_name[f"{stack}.{part}"] for part in parts]
        below = next(b for b in boxes if b.name in above and above[b.name] is inside[0])
        bottom = (below.y + below.height + inside[0].y) / 2  # in the gap below the layer
        top = inside[-1].y + inside[-1].height + _GAP / 2
        left = inside[0].x - _WIDTH / 2 - _FRAME[0]
        right = inside[0].x + _WIDTH / 2 + _FRAME[1]
        ax.add_patch(
            Rectangle(
                (left, bottom), right - left, top - bottom, fill=False, ec="0.5", ls=":", lw=1.2
            )
        )
        outside = left - 0.3 if column == 0 else right + 0.3
        ax.text(
            outside,
            (bottom + top) / 2,
            f"{stack}\nlayer\nx {num_layers}",
            ha="right" if column == 0 else "left",
            va="center",
            fontsize=_FONT,
        )
    ax.set(xlim=(0, width), ylim=(-0.1, height))
    if variant == "decoder-only":
        ax.set_title(title, fontsize=_FONT + 1)
    else:
        ax.set_title(title, fontsize=_FONT + 1, x=0.3 / width, y=1.0, ha="left", va="top")
    ax.axis("off")


def _draw_arrow(ax, start: DiagramBox, end: DiagramBox, arrow: DiagramArrow, highlight, above):
    """A flow arrow goes straight up; a residual goes round the right; memory crosses over."""
    head = {"arrowstyle": "-|>", "lw": 1.3, "shrinkA": 0, "shrinkB": 0}
    if arrow.kind == "flow":
        if end.y - (start.y + start.height) < _GAP / 2:
            return  # a dropout box sits right on its neighbour
        head["color"] = "0.3"
        ax.annotate("", (end.x, end.y), (start.x, start.y + start.height), arrowprops=head)
        return
    if arrow.kind == "residual":
        colour = _EDGE_HIGHLIGHT if highlight == "residual_norm" else "0.45"
        side = start.x + start.width / 2 + _LANE
        y0 = (start.y + start.height + above[start.name].y) / 2  # the gap above its start
        y1 = end.y + end.height / 2
        ax.plot([start.x, side, side], [y0, y0, y1], color=colour, lw=1.3)
        head["color"] = colour
        ax.annotate("", (end.x + end.width / 2, y1), (side, y1), arrowprops=head)
        return
    # memory: the encoder's output feeds the keys and values of every cross-attention
    colour = _EDGE_HIGHLIGHT if highlight in ("cross_attention", "masks") else "#0072B2"
    lift = start.y + start.height + 0.9
    middle = (start.x + start.width / 2 + _FRAME[1] + end.x - end.width / 2 - _FRAME[0]) / 2
    y1 = end.y + end.height / 2
    ax.plot(
        [start.x, start.x, middle, middle],
        [start.y + start.height, lift, lift, y1],
        color=colour,
        lw=2.2,
    )
    head.update(color=colour, lw=2.2)
    ax.annotate("", (end.x - end.width / 2, y1), (middle, y1), arrowprops=head)
    ax.text(
        start.x, lift + 0.15, arrow.label, color=colour, fontsize=_FONT, ha="center", va="bottom"
    )
