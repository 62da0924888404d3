"""Optional interactive widgets: sliders where exploring beats reading.

:func:`explore_encoding` draws a sinusoidal-style encoding table and one of its rows, with
sliders for the position ``t``, the width ``d_model`` and the ``base``. It needs ipywidgets
and a Jupyter front end to be interactive; without ipywidgets it draws one static figure for
the starting values and returns None, so a notebook that calls it still runs everywhere
(headless under nbval, in a plain Python script, in the static HTML site).
"""

from __future__ import annotations

import io
from collections.abc import Callable

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ._checks import require_even, require_int, require_positive_float
from ._convert import as_numpy
from .encodings import sinusoidal_encoding
from .plots import plot_encoding

__all__ = ["draw_encoding", "explore_encoding"]

FIGSIZE = (10.0, 3.6)

Encoding = Callable[[int, int, float], np.ndarray]


def _table(encoding: Encoding, num_positions: int, d_model: int, base: float) -> np.ndarray:
    pe = as_numpy(encoding(num_positions, d_model, base)).astype(np.float64)
    if pe.shape != (num_positions, d_model):
        raise ValueError(
            f"encoding must return shape (num_positions, d_model) = {(num_positions, d_model)}, "
            f"got {pe.shape}"
        )
    return pe


def _check_view(position, d_model, base, num_positions, encoding) -> tuple[int, int, float, int]:
    num_positions = require_int("num_positions", num_positions, minimum=1)
    position = require_int("position", position, minimum=0)
    if position >= num_positions:
        raise ValueError(f"position must be < num_positions={num_positions}, got {position}")
    d_model = require_even("d_model", d_model)
    base = require_positive_float("base", base)
    if not callable(encoding):
        raise TypeError(f"encoding must be a function, got {type(encoding).__name__}")
    return position, d_model, base, num_positions


def _draw(fig: Figure, pe: np.ndarray, position: int, base: float) -> None:
    """Heatmap of ``pe`` with row ``position`` marked (left) and that row (right)."""
    d_model = pe.shape[1]
    left, right = fig.subplots(1, 2)
    plot_encoding(pe, ax=left, title=f"table: d_model = {d_model}, base = {base:g}")
    left.axhline(position, color="black", linewidth=1.0)
    i = np.arange(d_model)
    right.plot(i[0::2], pe[position, 0::2], "o", label="even i: sin")
    right.plot(i[1::2], pe[position, 1::2], "s", label="odd i: cos")
    right.set(
        title=f"row PE[t = {position}]", xlabel="dimension i", ylabel="value", ylim=(-1.1, 1.1)
    )
    right.legend(loc="lower right")
    fig.tight_layout()


def draw_encoding(
    position: int,
    d_model: int,
    base: float = 10000.0,
    num_positions: int = 64,
    encoding: Encoding = sinusoidal_encoding,
) -> np.ndarray:
    """Draw the table ``encoding(num_positions, d_model, base)`` and its row ``t = position``.

    Left: the heatmap of the table ``(num_positions, d_model)`` with the chosen row marked.
    Right: that row, even dimensions (sin) and odd dimensions (cos) in two markers.
    Returns the table drawn, shape ``(num_positions, d_model)``.

    The static figure of :func:`explore_encoding` (notebooks 03 and 13).
    """
    position, d_model, base, num_positions = _check_view(
        position, d_model, base, num_positions, encoding
    )
    pe = _table(encoding, num_positions, d_model, base)  # (num_positions, d_model)
    fig = plt.figure(figsize=FIGSIZE)
    _draw(fig, pe, position, base)
    plt.show()
    plt.close(fig)
    return pe


def _png(pe: np.ndarray, position: int, base: float) -> bytes:
    """The figure of :func:`draw_encoding` as PNG bytes, drawn off-screen (no pyplot)."""
    fig = Figure(figsize=FIGSIZE, dpi=plt.rcParams["figure.dpi"])
    _draw(fig, pe, position, base)
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png")
    return buffer.getvalue()


def explore_encoding(
    position: int = 10,
    d_model: int = 64,
    base: float = 10000.0,
    num_positions: int = 64,
    encoding: Encoding = sinusoidal_encoding,
):
    """Sliders for ``position``, ``d_model`` and ``base`` over the figure of :func:`draw_encoding`.

    ``encoding(num_positions, d_model, base)`` is the table to explore (the course's sinusoidal
    encoding by default; pass a buggy one to compare). Returns the widget, an
    ``ipywidgets.VBox``: its ``sliders`` dict holds the three sliders, ``image`` the figure
    (a PNG image widget, redrawn off-screen on every change, so nothing is printed into the
    cell's output and a headless run stores the same output) and ``table`` the table drawn
    last. Display it by leaving it as a cell's last expression. Without ipywidgets it draws the
    starting values once and returns None. Used in notebooks 03 and 13.
    """
    position, d_model, base, num_positions = _check_view(
        position, d_model, base, num_positions, encoding
    )
    try:
        import ipywidgets as widgets
    except ImportError:
        print("ipywidgets is not installed: a static figure for the starting values instead.")
        draw_encoding(position, d_model, base, num_positions, encoding)
        return None

    sliders = {
        "position": widgets.IntSlider(position, 0, num_positions - 1, description="position t"),
        "d_model": widgets.IntSlider(d_model, 2, max(256, d_model), step=2, description="d_model"),
        "base": widgets.FloatLogSlider(
            base, base=10, min=1, max=6, step=0.25, description="base", readout_format=".3g"
        ),
    }
    image = widgets.Image(format="png")
    box = widgets.VBox([widgets.HBox(list(sliders.values())), image])
    box.sliders, box.image = sliders, image

    def redraw(_change=None) -> None:
        t, d, b = sliders["position"].value, sliders["d_model"].value, sliders["base"].value
        box.table = _table(encoding, num_positions, d, b)  # (num_positions, d)
        image.value = _png(box.table, t, b)

    for slider in sliders.values():
        slider.observe(redraw, names="value")
    redraw()
    return box
