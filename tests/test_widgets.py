"""helpers.widgets: the sliders redraw the right table, and the helper degrades without ipywidgets."""

from __future__ import annotations

import sys

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")

from helpers.encodings import sinusoidal_encoding  # noqa: E402
from helpers.widgets import draw_encoding, explore_encoding  # noqa: E402


def test_draw_encoding_returns_the_table_it_draws():
    pe = draw_encoding(position=3, d_model=8, base=100.0, num_positions=5)
    np.testing.assert_allclose(pe, sinusoidal_encoding(5, 8, 100.0))
    # row 0 of the paper's table: sin(0) = 0 in even, cos(0) = 1 in odd dimensions
    np.testing.assert_array_equal(pe[0], [0, 1, 0, 1, 0, 1, 0, 1])


def test_draw_encoding_accepts_another_encoding_and_torch_tensors():
    import torch

    def shifted(num_positions, d_model, base):  # a buggy table: counted from 1
        return torch.tensor(sinusoidal_encoding(num_positions + 1, d_model, base)[1:])

    pe = draw_encoding(0, 4, 10000.0, num_positions=3, encoding=shifted)
    np.testing.assert_allclose(pe[0], [np.sin(1.0), np.cos(1.0), np.sin(0.01), np.cos(0.01)])


def test_sliders_redraw_the_table():
    pytest.importorskip("ipywidgets")
    box = explore_encoding(position=2, d_model=6, base=10000.0, num_positions=10)
    assert set(box.sliders) == {"position", "d_model", "base"}
    np.testing.assert_allclose(box.table, sinusoidal_encoding(10, 6))

    box.sliders["d_model"].value = 12
    assert box.table.shape == (10, 12)
    box.sliders["base"].value = 100.0
    np.testing.assert_allclose(box.table, sinusoidal_encoding(10, 12, 100.0))
    png = box.image.value
    assert png[:8] == b"\x89PNG\r\n\x1a\n", "the figure is a PNG image widget"
    box.sliders["position"].value = 9
    assert box.image.value != png, "moving the position redraws the figure"
    assert box.sliders["position"].max == 9, "the position slider stops at the last row"


def test_without_ipywidgets_a_static_figure_is_drawn(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "ipywidgets", None)  # makes `import ipywidgets` fail
    assert explore_encoding(position=1, d_model=4, num_positions=3) is None
    assert "ipywidgets is not installed" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("kwargs", "error", "name"),
    [
        ({"d_model": 7}, ValueError, "d_model"),
        ({"d_model": 4.0}, TypeError, "d_model"),
        ({"position": -1}, ValueError, "position"),
        ({"position": 64}, ValueError, "position"),
        ({"base": 0.0}, ValueError, "base"),
        ({"num_positions": 0}, ValueError, "num_positions"),
    ],
)
@pytest.mark.parametrize("function", [draw_encoding, explore_encoding])
def test_bad_arguments_are_named(function, kwargs, error, name):
    arguments = {"position": 1, "d_model": 4, "base": 10000.0, "num_positions": 64, **kwargs}
    with pytest.raises(error, match=name):
        function(**arguments)


def test_an_encoding_of_the_wrong_shape_is_refused():
    with pytest.raises(ValueError, match="encoding must return shape"):
        draw_encoding(0, 4, encoding=lambda n, d, base: np.zeros((n, d + 1)))
    with pytest.raises(TypeError, match="encoding"):
        draw_encoding(0, 4, encoding="sinusoidal")
