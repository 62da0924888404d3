"""helpers._convert.as_numpy: the one converter the plots, widgets and exercise checkers share."""

from __future__ import annotations

import numpy as np
import torch

from helpers import plots, widgets
from helpers._convert import as_numpy
from helpers.exercises import _core


def test_tensors_arrays_and_lists_become_the_same_array():
    expected = np.array([[0.5, -1.0], [2.0, 0.25]], dtype=np.float32)
    tensor = torch.tensor(expected.tolist(), requires_grad=True) * 1.0  # with grad
    for value in (tensor, torch.tensor(expected.tolist(), dtype=torch.bfloat16), expected):
        array = as_numpy(value)
        assert isinstance(array, np.ndarray) and array.dtype == np.float32
        np.testing.assert_array_equal(array, expected)
    np.testing.assert_array_equal(as_numpy([[1, 2], [3, 4]]), np.array([[1, 2], [3, 4]]))
    assert as_numpy(torch.tensor(True)).dtype == bool


def test_every_converting_helper_uses_the_shared_converter():
    assert _core.as_numpy is as_numpy and plots.as_numpy is as_numpy
    assert widgets.as_numpy is as_numpy
