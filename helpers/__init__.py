"""Tested building blocks for the course "Position in Transformers, from first principles".

Layers (a lower module never imports a higher one)::

    encodings  ->  attention  ->  transformer  ->  training
    data, plots (with figure_record and diagram), exercises sit beside them.

The two functions here are the ones every notebook calls first.
"""

from __future__ import annotations

import importlib
import os
import random
import sys

import numpy as np
import torch

__all__ = ["seed_everything", "get_device", "__version__"]
__version__ = "0.1.0"

# Submodules load on first use, so `import helpers` stays fast and `helpers.plots.set_style()`
# works without a separate import.
_SUBMODULES = (
    "attention",
    "attention_sinks",
    "check_env",
    "data",
    "diagram",
    "encodings",
    "exercises",
    "extrapolation",
    "figure_record",
    "model_configs",
    "per_layer_experiment",
    "plots",
    "training",
    "transformer",
    "widgets",
)


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'helpers' has no attribute {name!r}")


def seed_everything(seed: int = 0, *, deterministic: bool = True) -> None:
    """Seed Python's, NumPy's and PyTorch's random generators in one call.

    With ``deterministic=True`` PyTorch is also asked to use deterministic algorithms
    (``warn_only`` so that an operation without one still runs). On the course's CPU
    workloads this makes every printed number repeat exactly from run to run.

    Introduced in notebook 00; used in the set-up cell of every notebook.
    """
    from ._checks import require_int

    seed = require_int("seed", seed, minimum=0, maximum=2**32 - 1)  # NumPy takes 32-bit seeds
    random.seed(seed)
    np.random.seed(seed)  # noqa: NPY002 -- learners call the legacy global np.random API
    torch.manual_seed(seed)  # also seeds CUDA generators when CUDA is present
    os.environ["PYTHONHASHSEED"] = str(seed)  # inherited by subprocesses
    if deterministic:
        _deterministic_algorithms()
        if torch.backends.cudnn.is_available():
            torch.backends.cudnn.benchmark = False


def _deterministic_algorithms() -> None:
    """What ``torch.use_deterministic_algorithms(True, warn_only=True)`` does, without its
    import of ``torch._inductor`` (``torch._dynamo`` and SymPy: about 2 s of CPU, a third of a
    notebook's set-up cell, for a compiler the course never uses): the same switch of PyTorch's
    eager operations, and TorchInductor's own flag set now if it is loaded, or else through the
    variable it reads when it is (``TORCHINDUCTOR_DETERMINISTIC``)."""
    os.environ["TORCHINDUCTOR_DETERMINISTIC"] = "1"
    inductor = sys.modules.get("torch._inductor.config")
    if inductor is not None:
        inductor.deterministic = True
    torch._C._set_deterministic_algorithms(True, warn_only=True)


def get_device(prefer: str | None = None) -> torch.device:
    """Return the best available device: CUDA, then Apple's MPS, else the CPU.

    ``prefer="cpu"`` forces the CPU; the notebooks do that by default so that their printed
    outputs are the same on every machine. Introduced in notebook 00.
    """
    if prefer is not None:
        from ._checks import require_choice, require_device

        return require_device("prefer", require_choice("prefer", prefer, ("cpu", "cuda", "mps")))
    if torch.cuda.is_available():
        return torch.device("cuda")
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return torch.device("mps")
    return torch.device("cpu")
