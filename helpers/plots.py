"""Plotting with one look across the course.

Two colour maps, both readable with colour-vision deficiency: a diverging map centred on 0 for
encodings (values in [-1, 1]) and a perceptually uniform sequential map for attention weights.
Every function returns the data it drew, so tests and notebook checks can assert a figure's
numbers (nbval compares text, not images).
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import struct
import sys
import zlib
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import partial

import matplotlib
import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Rectangle
from matplotlib.text import Text

from ._checks import require_bool, require_choice, require_int, require_positive_float
from ._convert import as_numpy

__all__ = [
    "ENCODING_CMAP",
    "ATTENTION_CMAP",
    "set_style",
    "smallest_text",
    "figure_png",
    "read_text_size",
    "TEXT_SIZE_KEY",
    "plot_encoding",
    "plot_attention",
    "draw_transformer",
    "DIAGRAM_VARIANTS",
    "DIAGRAM_HIGHLIGHTS",
]

ENCODING_CMAP = "RdBu_r"  # diverging, centred on 0: blue negative, red positive
ATTENTION_CMAP = "viridis"  # sequential, perceptually uniform


def set_style(dpi: int = 80, png_scale: int = 2) -> None:
    """Course-wide figure style: readable on a projector, light in a committed notebook.

    ``dpi`` sets the size a figure is shown at in JupyterLab (``figsize`` inches x ``dpi``
    pixels); in a Jupyter kernel the PNG itself holds ``png_scale`` times as many pixels, so
    that it stays sharp when a deck enlarges it to a projector's slide, and records the size
    of its smallest text (see :func:`figure_png`). Used in the set-up cell of every lesson
    (notebooks 00 to 17).
    """
    dpi = require_int("dpi", dpi, minimum=1)
    png_scale = require_int("png_scale", png_scale, minimum=1, maximum=4)
    plt.rcParams.update(
        {
            "figure.figsize": (7.0, 3.6),
            "figure.dpi": dpi,
            "savefig.dpi": dpi,
            # 13 pt at 80 dpi is 14.4 px, JupyterLab's text size; on a slide, where a figure
            # is shown larger, it reaches 18 px once a 7-inch figure is 700 px wide
            "font.size": 13,
            "axes.titlesize": 14,
            "axes.labelsize": 13,
            "axes.grid": False,
            "image.cmap": ATTENTION_CMAP,
        }
    )
    _show_figures_as_recorded_png(png_scale)


# --- What a figure's smallest text is, recorded in its PNG --------------------------------------

TEXT_SIZE_KEY = "Smallest text"  # the PNG text chunk that records it (JSON, figure_png)


@dataclass
class _Drawn:
    """The texts matplotlib drew, and where each landed (pixels) on each renderer it drew on."""

    texts: list[Text]
    boxes: list[tuple[int, Text, object]]  # (id of the renderer, text, its window extent)


@contextlib.contextmanager
def _drawn_texts() -> Iterator[_Drawn]:
    """Collect every text that matplotlib draws inside the block (visible and not blank).

    ``Text.draw`` is wrapped while the block runs, so a tick label outside the axes' range, an
    invisible axis or an empty annotation (an arrow alone) never counts: only what is drawn."""
    drawn = _Drawn([], [])
    original = Text.draw

    def draw(self, renderer, *args, **kwargs):
        result = original(self, renderer, *args, **kwargs)
        if self.get_visible() and self.get_text().strip():
            drawn.texts.append(self)
            drawn.boxes.append((id(renderer), self, self.get_window_extent(renderer)))
        return result

    Text.draw = draw
    try:
        yield drawn
    finally:
        Text.draw = original


def _smallest(drawn: _Drawn) -> tuple[float, str]:
    if not drawn.texts:
        return float("inf"), ""
    text = min(drawn.texts, key=lambda artist: artist.get_fontsize())
    return float(text.get_fontsize()), text.get_text().strip()


def _overlapping(drawn: _Drawn, dpi: float) -> list[tuple[str, str]]:
    """Pairs of texts drawn over each other in the last drawing (the PNG): boxes that share more
    than a quarter of the smaller font's size both across and down (crowded tick labels, a
    title running into its neighbour's); the little overlap of stacked labels' line boxes
    does not count."""
    last = drawn.boxes[-1][0] if drawn.boxes else None
    boxes = [(text, box) for renderer, text, box in drawn.boxes if renderer == last]
    pairs = []
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            margin = 0.25 * min(a.get_fontsize(), b.get_fontsize()) * dpi / 72
            across = min(box_a.x1, box_b.x1) - max(box_a.x0, box_b.x0)
            down = min(box_a.y1, box_b.y1) - max(box_a.y0, box_b.y0)
            if across > margin and down > margin:
                pairs.append((a.get_text().strip()[:30], b.get_text().strip()[:30]))
    return pairs


def _check_figure(fig) -> Figure:
    if not isinstance(fig, Figure):
        raise TypeError(f"fig must be a matplotlib Figure, got {type(fig).__name__}")
    return fig


def smallest_text(fig) -> tuple[float, str]:
    """The font size in points of the smallest text drawn in ``fig``, and that text.

    Every drawn text counts: titles, axis and tick labels, legend entries, colour-bar labels,
    annotations, text in boxes. ``(inf, "")`` for a figure without text. Shown on a slide, the
    text is ``points x dpi / 72`` pixels of the PNG tall, times the scale the slide shows the
    PNG at. Used for every figure of notebooks 00 to 17 (through :func:`figure_png`).
    """
    fig = _check_figure(fig)
    with _drawn_texts() as drawn:
        fig.draw_without_rendering()
    return _smallest(drawn)


def _png_chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def figure_png(fig, dpi: float | None = None) -> bytes:
    """``fig`` as a PNG cropped to its content, as Jupyter shows it, with a text chunk
    ``TEXT_SIZE_KEY`` recording its smallest text: ``{"pt", "dpi", "px", "text"}`` (``px`` =
    ``pt x dpi / 72``, the text's size in pixels of this PNG), and how many pairs of its texts
    overlap (``"overlaps"``, with up to three ``"overlapping"`` pairs: crowded tick labels, a
    title running into another). ``dpi`` defaults to the figure's. Used for every figure of notebooks 00 to 17 (``set_style`` makes Jupyter show
    figures with it); :func:`read_text_size` reads the record back.
    """
    fig = _check_figure(fig)
    dpi = fig.dpi if dpi is None else require_positive_float("dpi", dpi)
    buffer = io.BytesIO()
    colours = {"facecolor": fig.get_facecolor(), "edgecolor": fig.get_edgecolor()}
    with _drawn_texts() as drawn:
        fig.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight", **colours)
    points, text = _smallest(drawn)
    record = {"pt": points, "dpi": dpi, "px": round(points * dpi / 72, 3), "text": text[:60]}
    if not drawn.texts:
        record.update(pt=None, px=None)
    overlaps = _overlapping(drawn, dpi)
    record.update(overlaps=len(overlaps), overlapping=overlaps[:3])
    png = buffer.getvalue()
    chunk = TEXT_SIZE_KEY.encode("latin-1") + b"\0" + json.dumps(record).encode("ascii")
    end_of_header = 8 + 25  # the signature, then IHDR (4 length + 4 type + 13 data + 4 CRC)
    return png[:end_of_header] + _png_chunk(b"tEXt", chunk) + png[end_of_header:]


def read_text_size(png: bytes) -> dict | None:
    """The smallest-text record a PNG from :func:`figure_png` carries, or None without one.

    Reads the chunks up to the image data (where :func:`figure_png` puts the record), so the
    first kilobyte or so of the file is enough. Used by the deck tests for notebooks 00 to 17.
    """
    if not isinstance(png, bytes | bytearray):
        raise TypeError(f"png must be bytes, got {type(png).__name__}")
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"png must start with the PNG signature, got {bytes(png[:8])!r}")
    at = 8
    while at + 8 <= len(png):
        length, kind = struct.unpack(">I4s", png[at : at + 8])
        if kind in (b"IDAT", b"IEND"):
            return None
        data = png[at + 8 : at + 8 + length]
        key, _, value = bytes(data).partition(b"\0")
        if kind == b"tEXt" and key == TEXT_SIZE_KEY.encode("latin-1"):
            return json.loads(value)
        at += 12 + length
    return None


def _figure_output(fig: Figure, png_scale: int) -> tuple[bytes, dict] | None:
    """Jupyter's PNG of ``fig``: ``png_scale`` times the pixels, shown at the style's size."""
    if not fig.axes and not fig.lines:
        return None  # as IPython: an empty figure shows nothing
    png = figure_png(fig, dpi=fig.dpi * png_scale)
    width, height = struct.unpack(">II", png[16:24])
    return png, {"width": width // png_scale, "height": height // png_scale}


def _show_figures_as_recorded_png(png_scale: int) -> None:
    """In a Jupyter kernel with matplotlib's inline backend, show figures with
    :func:`figure_png`. The backend registers its own PNG formatter when it loads (on the first
    figure), so it is loaded first and then replaced; elsewhere nothing changes."""
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    if shell is None or not hasattr(shell, "display_formatter"):
        return
    if "inline" not in matplotlib.get_backend():
        return
    importlib.import_module("matplotlib_inline.backend_inline")
    formatter = shell.display_formatter.formatters["image/png"]
    formatter.for_type(Figure, partial(_figure_output, png_scale=png_scale))


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
