"""The figure record: every lesson figure's PNG carries the size of its smallest text.

:func:`figure_png` draws a figure as Jupyter shows it and writes into the PNG, as a text chunk
``TEXT_SIZE_KEY``, the smallest text matplotlib drew and how many texts overlap;
:func:`read_text_size` reads it back (the deck and figure tests do), :func:`smallest_text`
measures a figure without drawing a PNG. :func:`helpers.plots.set_style` makes a Jupyter kernel
show every figure through :func:`figure_png`. Re-exported by :mod:`helpers.plots`.
"""

from __future__ import annotations

import contextlib
import importlib
import io
import json
import struct
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from functools import partial

import matplotlib
from matplotlib.figure import Figure
from matplotlib.text import Text

from ._checks import require_positive_float

__all__ = ["smallest_text", "figure_png", "read_text_size", "TEXT_SIZE_KEY"]


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
