"""Round-off fuzz: re-run notebooks with the inputs of NumPy's and torch's linear-algebra
routines perturbed by a few units in the last place, as another CPU's rounding would perturb them.

Usage::

    python scripts/roundoff_fuzz.py                       # the notebooks that use linear algebra
    python scripts/roundoff_fuzz.py notebooks/14_*.ipynb  # some notebooks
    python scripts/roundoff_fuzz.py --all                 # every notebook of the course
    python scripts/roundoff_fuzz.py --tests               # the unit tests that use it (pytest --roundoff-fuzz)

A value that round-off decides (the sign of an exact zero, an argmax tie, an eigenvector of a
repeated eigenvalue, ``arccos`` of 1 + 4e-16) differs between CPUs because OpenBLAS and LAPACK
pick different kernels on each. This script reaches those kernels' inputs directly: every
floating-point array passed to a wrapped routine (:data:`NUMPY_ROUTINES`, :data:`TORCH_ROUTINES`)
is multiplied entry by entry by ``1 + u * ULPS * eps`` with ``u`` uniform in [-1, 1] from a
seeded generator of its own (the notebooks' random streams are untouched); an exactly symmetric
matrix stays symmetric. nbval then compares every output with the committed one: a cell that
fails here prints something round-off decides.

The notebooks get the wrappers through an IPython startup file in a temporary ``IPYTHONDIR``
(nbval's kernels run it); the unit tests through ``pytest --roundoff-fuzz`` (tests/conftest.py
calls :func:`install`). No ``OPENBLAS_*`` variable is set or unset: some machines need them.
"""

from __future__ import annotations

import argparse
import functools
import importlib.abc
import importlib.util
import os
import subprocess
import sys
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
ULPS = 4.0
SEED = 2  # reproduces both failures of issue 23 on the unfixed code
NUMPY_ROUTINES = (
    "eigh",
    "eigvalsh",
    "eig",
    "eigvals",
    "svd",
    "solve",
    "lstsq",
    "det",
    "slogdet",
    "inv",
    "pinv",
    "norm",
    "qr",
    "cholesky",
    "matrix_power",
)
TORCH_ROUTINES = NUMPY_ROUTINES + ("vector_norm", "matrix_norm", "svdvals")

_SEED = int(os.environ.get("ROUNDOFF_FUZZ_SEED", SEED))


def _factor(x: np.ndarray, eps: float, symmetric: bool) -> np.ndarray:
    """``1 + u * ULPS * eps``, ``u`` uniform in [-1, 1]; symmetric in the last two axes if asked.

    ``u`` is seeded by the input's bytes: the same input is perturbed the same way every time,
    as one CPU rounds the same computation the same way (and call order does not matter)."""
    rng = np.random.default_rng([_SEED, zlib.crc32(np.ascontiguousarray(x).tobytes())])
    u = rng.uniform(-1.0, 1.0, size=x.shape)
    if symmetric:
        u = np.triu(u) + np.swapaxes(np.triu(u, 1), -1, -2)
    return 1.0 + u * ULPS * eps


def _is_symmetric(x: np.ndarray) -> bool:
    return (
        x.ndim >= 2
        and x.shape[-1] == x.shape[-2]
        and bool(np.array_equal(x, np.swapaxes(x, -1, -2)))
    )


def perturb_numpy(x: object) -> object:
    """A float or complex array perturbed by about ULPS units in the last place; else ``x``."""
    if not isinstance(x, np.ndarray) or x.dtype.kind not in "fc" or x.size == 0:
        return x
    eps = float(np.finfo(x.dtype).eps)
    return (x * _factor(x, eps, _is_symmetric(x))).astype(x.dtype)


def perturb_torch(x: object) -> object:
    """The same for a floating-point torch tensor (autograd passes through the product)."""
    import torch

    if not isinstance(x, torch.Tensor) or not x.is_floating_point() or x.numel() == 0:
        return x
    eps = float(torch.finfo(x.dtype).eps)
    symmetric = x.ndim >= 2 and x.shape[-1] == x.shape[-2] and bool(torch.equal(x, x.mT))
    values = x.detach().cpu().numpy()
    factor = torch.from_numpy(_factor(values, eps, symmetric)).to(x.device, x.dtype)
    return x * factor


def _wrap(routine, perturb):
    if getattr(routine, "_roundoff_fuzz", False):
        return routine

    @functools.wraps(routine)
    def fuzzed(*args, **kwargs):
        args = tuple(perturb(a) for a in args)
        kwargs = {key: perturb(value) for key, value in kwargs.items()}
        return routine(*args, **kwargs)

    fuzzed._roundoff_fuzz = True
    return fuzzed


def _install_torch() -> None:
    import torch

    for name in TORCH_ROUTINES:
        if hasattr(torch.linalg, name):
            setattr(torch.linalg, name, _wrap(getattr(torch.linalg, name), perturb_torch))


class _TorchHook(importlib.abc.MetaPathFinder):
    """Wrap torch.linalg right after ``import torch`` (so that notebooks without torch pay
    nothing for it)."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        sys.meta_path.remove(self)
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None:
            return spec
        exec_module = spec.loader.exec_module

        def exec_and_wrap(module):
            exec_module(module)
            _install_torch()

        spec.loader.exec_module = exec_and_wrap
        return spec


def install() -> None:
    """Wrap NumPy's (now) and torch's (now or at its import) linear-algebra routines."""
    for name in NUMPY_ROUTINES:
        setattr(np.linalg, name, _wrap(getattr(np.linalg, name), perturb_numpy))
    if "torch" in sys.modules:
        _install_torch()
    else:
        sys.meta_path.insert(0, _TorchHook())


# ------------------------------------------------------------------------------ the run

STARTUP = f"""\
# Round-off fuzz (scripts/roundoff_fuzz.py): perturb linear-algebra inputs by ~{ULPS:g} ulp.
import sys as _sys
_sys.path.insert(0, {str(ROOT / "scripts")!r})
import roundoff_fuzz as _roundoff_fuzz
_roundoff_fuzz.install()
del _sys, _roundoff_fuzz
"""

# words that mark a file as using linear algebra, directly or through the graph helpers
LINEAR_ALGEBRA = ("linalg.", "laplacian_pe", "random_walk_pe", "check_laplacian_pe")


def _using_linear_algebra(paths: list[Path]) -> list[Path]:
    return [p for p in paths if any(w in p.read_text(encoding="utf-8") for w in LINEAR_ALGEBRA)]


def linear_algebra_notebooks() -> list[Path]:
    """The notebooks (lessons and solutions) that call a NumPy or torch linear-algebra routine,
    directly or through ``helpers`` (Laplacian encodings: notebook 14)."""
    return _using_linear_algebra(sorted((ROOT / "notebooks").glob("**/*.ipynb")))


def linear_algebra_tests() -> list[Path]:
    """The unit-test files that do the same."""
    return _using_linear_algebra(sorted((ROOT / "tests").glob("test_*.py")))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("notebooks", nargs="*", type=Path)
    parser.add_argument("--all", action="store_true", help="every notebook of the course")
    parser.add_argument("--tests", action="store_true", help="the unit tests instead")
    options = parser.parse_args()
    start, cpu = time.perf_counter(), time.process_time()
    if options.tests:
        tests = [str(t) for t in linear_algebra_tests()]
        command = [sys.executable, "-m", "pytest", "-q", "-p", "no:nbval", "-o", "addopts=",
                   "--roundoff-fuzz", *tests]  # fmt: skip
        env = dict(os.environ)
    else:
        if options.all:
            targets = [ROOT / "notebooks"]
        else:
            targets = options.notebooks or linear_algebra_notebooks()
        command = [sys.executable, "-m", "pytest", "-q", *[str(t) for t in targets]]
        ipython_dir = tempfile.mkdtemp(prefix="roundoff-fuzz-")
        startup = Path(ipython_dir) / "profile_default" / "startup"
        startup.mkdir(parents=True)
        (startup / "00-roundoff-fuzz.py").write_text(STARTUP, encoding="utf-8")
        env = dict(os.environ, IPYTHONDIR=ipython_dir)
        print(f"round-off fuzz (~{ULPS:g} ulp) on {len(targets)} path(s)", flush=True)
    result = subprocess.run(command, cwd=ROOT, env=env, check=False)
    children = os.times()
    print(
        f"round-off fuzz: {time.perf_counter() - start:.0f} s wall, "
        f"{children.children_user + children.children_system + time.process_time() - cpu:.0f} s CPU"
    )
    return result.returncode


if __name__ == "__main__":
    sys.exit(main())
