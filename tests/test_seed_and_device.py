# The legacy global np.random API is what seed_everything seeds for learners: test it directly.
# ruff: noqa: NPY002
import random

import numpy as np
import pytest
import torch

import helpers


def test_seed_everything_repeats_all_generators():
    helpers.seed_everything(123)
    first = (random.random(), np.random.rand(), torch.rand(1).item())
    helpers.seed_everything(123)
    assert (random.random(), np.random.rand(), torch.rand(1).item()) == first
    helpers.seed_everything(124)
    assert torch.rand(1).item() != first[2]


def test_seed_everything_rejects_bad_seed():
    with pytest.raises(ValueError, match="seed"):
        helpers.seed_everything(-1)
    with pytest.raises(TypeError, match="seed"):
        helpers.seed_everything("zero")


def test_get_device():
    assert helpers.get_device("cpu") == torch.device("cpu")
    assert helpers.get_device().type in {"cpu", "cuda", "mps"}
    if not torch.cuda.is_available():
        assert helpers.get_device().type in {"cpu", "mps"}
    with pytest.raises(ValueError, match="prefer"):
        helpers.get_device("tpu")
