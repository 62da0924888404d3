"""Plotting with one look across the course.

Two colour maps, both readable with colour-vision deficiency: a diverging map centred on 0 for
encodings (values in [-1, 1]) and a perceptually uniform sequential map for attention weights.
Every function returns the data it drew, so tests and notebook checks can assert a figure's
numbers (nbval compares text, not images).

Two neighbours do the rest and are re-exported here, so ``from helpers.plots import ...`` gives
all of it: :mod:`helpers.figure_record` (the PNG that records a figure's smallest text) and
:mod:`helpers.diagram` (the architecture diagram, :func:`draw_transformer`).
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np

from ._checks import require_int
from ._convert import as_numpy
from .diagram import DIAGRAM_HIGHLIGHTS, DIAGRAM_VARIANTS, draw_transformer
from .figure_record import (
    TEXT_SIZE_KEY,
    _show_figures_as_recorded_png,
    figure_png,
    read_text_size,
    smallest_text,
)

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
