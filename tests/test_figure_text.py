"""Figures a room can read: each figure's PNG records its smallest text, and every lesson figure
can show it at 18 px or more on a 1280x720 slide.

``helpers.plots.set_style`` makes Jupyter draw figures with ``helpers.plots.figure_png``: a PNG with
twice the pixels it is shown with in JupyterLab and a text chunk holding the font size (points)
of the smallest text matplotlib drew in it, its dpi and that size in pixels of the PNG. The deck
test (``tests/test_slides_browser.py``) multiplies it by the scale Chromium shows the PNG at.
These tests need no browser: the record itself, then what every lesson figure must meet on any
slide (its text at 18 px when the figure is as wide as the slide's text, 1208 px, and no taller
than a slide with a heading leaves, ``MAX_FIGURE_HEIGHT``; no text drawn over another).
"""

from __future__ import annotations

import base64
import io
import struct
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import nbformat  # noqa: E402
import numpy as np  # noqa: E402
import pytest  # noqa: E402
from PIL import Image  # noqa: E402

from helpers import figure_record, plots  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from _course import lesson_notebooks  # noqa: E402

MIN_PX = 18.0  # the smallest text of a figure on a slide, on screen
SLIDE_TEXT_WIDTH = 1208  # a 1280 px slide less its 36 px side paddings
MAX_FIGURE_HEIGHT = 628  # 720 px less the bottom band (32), paddings (12) and a small heading (48)


@pytest.fixture
def figure():
    fig, ax = plt.subplots(figsize=(6, 3), dpi=80)
    ax.plot([0, 1, 2], [0, 1, 4], label="squares")
    ax.set(title="A title", xlabel="x", ylabel="y", xlim=(0, 2))
    ax.legend(fontsize=13)
    yield fig, ax
    plt.close(fig)


def test_smallest_text_finds_the_smallest_drawn_text(figure):
    fig, ax = figure
    assert plots.smallest_text(fig) == (10.0, "0.00")  # matplotlib's default tick labels
    ax.tick_params(labelsize=14)
    ax.xaxis.label.set_fontsize(12)
    ax.yaxis.label.set_fontsize(15)
    ax.title.set_fontsize(15)
    assert plots.smallest_text(fig) == (12.0, "x")
    ax.annotate("small print", (1, 1), fontsize=8)
    assert plots.smallest_text(fig) == (8.0, "small print")


def test_smallest_text_counts_only_what_is_drawn(figure):
    fig, ax = figure
    ax.tick_params(labelsize=14)
    ax.xaxis.label.set_fontsize(14)
    ax.yaxis.label.set_fontsize(14)
    ax.title.set_fontsize(14)
    hidden = ax.text(0, 0, "hidden", fontsize=5)
    hidden.set_visible(False)
    ax.annotate("", (1, 1), (0, 0), arrowprops={"arrowstyle": "->"}, fontsize=4)  # an arrow
    ax.text(1, 1, "   ", fontsize=3)  # blank
    other = fig.add_axes((0.8, 0.8, 0.1, 0.1))
    other.axis("off")  # its tick labels are not drawn
    other.tick_params(labelsize=2)
    assert plots.smallest_text(fig)[0] == 13.0  # the legend


def test_figure_png_records_its_smallest_text_and_dpi(figure):
    fig, ax = figure
    ax.annotate("tiny", (1, 1), fontsize=8)
    png = plots.figure_png(fig, dpi=160)
    assert plots.read_text_size(png) == {
        "pt": 8.0,
        "dpi": 160.0,
        "px": 17.778,
        "text": "tiny",
        "overlaps": 0,
        "overlapping": [],
    }
    image = Image.open(io.BytesIO(png))
    image.load()  # every chunk's checksum holds
    assert image.text[plots.TEXT_SIZE_KEY].startswith('{"pt": 8.0')
    plain = io.BytesIO()
    fig.savefig(plain, format="png", dpi=160, bbox_inches="tight")
    assert Image.open(plain).size == image.size  # the same picture, cropped as Jupyter does
    assert plots.read_text_size(plain.getvalue()) is None
    assert plots.read_text_size(plots.figure_png(fig))["dpi"] == 80.0  # the figure's own


def test_figure_png_counts_texts_drawn_over_each_other():
    """Seventeen labels on a small heat map collide; on a large one they do not (stacked
    labels' line boxes touch, their letters do not); two notes at one place do."""
    labels = [str(i) for i in range(17)]
    with plt.rc_context({"font.size": 13}):
        fig, ax = plt.subplots(figsize=(3, 2.5))
        plots.plot_attention(np.eye(17), labels, labels, ax=ax)
    record = plots.read_text_size(plots.figure_png(fig, dpi=160))
    assert record["overlaps"] > 10 and record["overlapping"][0] == ["0", "1"]
    fig.set_size_inches(9, 6)
    assert plots.read_text_size(plots.figure_png(fig, dpi=160))["overlaps"] == 0
    ax.annotate("a note", (3, 3))
    ax.annotate("another", (3.5, 3))  # written over the first
    assert plots.read_text_size(plots.figure_png(fig, dpi=160))["overlapping"] == [
        ["a note", "another"]
    ]
    plt.close(fig)


def test_a_figure_without_text_records_none():
    fig = plt.figure(figsize=(2, 2))
    ax = fig.add_axes((0, 0, 1, 1))
    ax.axis("off")
    ax.plot([0, 1], [0, 1])
    assert plots.smallest_text(fig) == (float("inf"), "")
    assert plots.read_text_size(plots.figure_png(fig))["px"] is None
    plt.close(fig)


def test_jupyter_gets_twice_the_pixels_shown_at_the_styles_size(figure):
    fig, _ = figure
    png, metadata = figure_record._figure_output(fig, png_scale=2)
    width, height = struct.unpack(">II", png[16:24])
    assert metadata == {"width": width // 2, "height": height // 2}
    assert plots.read_text_size(png)["dpi"] == 160.0
    assert figure_record._figure_output(plt.figure(), png_scale=2) is None  # empty: nothing shown


def test_set_style_outside_jupyter_changes_only_the_style():
    with plt.rc_context():
        plots.set_style()
        assert plt.rcParams["figure.dpi"] == 80


# ---------------------------------------------------------------- every lesson figure


def _figures():
    for path in lesson_notebooks():
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            for output in cell.get("outputs", []):
                if "image/png" in output.get("data", {}):
                    png = base64.b64decode(output["data"]["image/png"])
                    yield f"{path.stem[:2]} {cell.get('id')}", png, output.get("metadata", {})


FIGURES = list(_figures())


def best_slide_px(png: bytes) -> float:
    """The smallest text's size on screen when the figure gets a whole slide below a heading."""
    record = plots.read_text_size(png)
    width, height = struct.unpack(">II", png[16:24])
    return record["px"] * min(SLIDE_TEXT_WIDTH / width, MAX_FIGURE_HEIGHT / height)


def test_every_lesson_figure_records_its_smallest_text():
    assert len(FIGURES) >= 50
    missing = [where for where, png, _ in FIGURES if not plots.read_text_size(png)]
    assert not missing, f"figures whose PNG records no smallest text (re-execute): {missing}"


def test_every_lesson_figure_can_show_its_text_at_18_px_on_a_slide():
    """A necessary condition for the deck test: even given a slide to itself, a figure whose
    smallest text stays under 18 px needs larger fonts, a smaller figsize or a split."""
    bad = [
        f"{where}: {best_slide_px(png):.1f} px ({plots.read_text_size(png)['text']!r})"
        for where, png, _ in FIGURES
        if best_slide_px(png) < MIN_PX
    ]
    assert not bad, "figures too large for their smallest text:\n" + "\n".join(bad)


def test_no_lesson_figure_draws_text_over_text():
    """Crowded tick labels, or a title running into its neighbour, are unreadable at any size."""
    bad = [
        f"{where}: {plots.read_text_size(png)['overlapping']}"
        for where, png, _ in FIGURES
        if plots.read_text_size(png).get("overlaps", 1)
    ]
    assert not bad, "figures with texts drawn over each other:\n" + "\n".join(bad)


def test_jupyterlab_shows_each_figure_at_a_readable_size():
    """In JupyterLab a figure is shown at half its PNG's pixels (output metadata), so learners
    see it at the course style's size: not larger than a laptop's notebook column, and its
    smallest text not below 10 px."""
    for where, png, metadata in FIGURES:
        width, height = struct.unpack(">II", png[16:24])
        shown = metadata.get("image/png", {})
        assert shown == {"width": width // 2, "height": height // 2}, where
        assert shown["width"] <= 1000, f"{where}: {shown['width']} px wide in JupyterLab"
        assert plots.read_text_size(png)["px"] / 2 >= 10, where
