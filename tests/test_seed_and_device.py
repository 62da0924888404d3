# The legacy global np.random API is what seed_everything seeds for learners: test it directly.
# ruff: noqa: NPY002
import os
import random
import subprocess
import sys

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


def test_seed_everything_makes_torch_deterministic_without_loading_its_compiler():
    """The state torch.use_deterministic_algorithms(True, warn_only=True) leaves, in a fresh
    interpreter: eager operations deterministic (warn only), TorchInductor's flag on once it is
    imported; and torch._inductor not imported by seed_everything itself (its 1.5 s of CPU)."""
    script = (
        "import sys, torch, helpers\n"
        "assert not torch.are_deterministic_algorithms_enabled()\n"
        "helpers.seed_everything(0)\n"
        "print(torch.are_deterministic_algorithms_enabled(),"
        " torch.is_deterministic_algorithms_warn_only_enabled(),"
        " 'torch._inductor.config' in sys.modules)\n"
        "import torch._inductor.config as inductor\n"
        "print(inductor.deterministic)\n"
        "inductor.deterministic = False\n"
        "helpers.seed_everything(1)\n"  # loaded already: set directly
        "print(inductor.deterministic)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.split() == ["True", "True", "False", "True", "True"], done.stderr


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


def test_a_pytest_worker_runs_torch_on_its_share_of_the_cores():
    """Under the README's `pytest` (pytest-xdist) each worker, like the kernels it starts,
    runs torch on its share of the cores (conftest.py), not on every core."""
    if not os.environ.get("PYTEST_XDIST_WORKER_COUNT"):
        pytest.skip("only under pytest-xdist, as the README's `pytest` runs")
    assert torch.get_num_threads() == int(os.environ["OMP_NUM_THREADS"])
