"""How `pytest` spreads the suite over workers (pytest-xdist, ``-n auto --dist loadfile`` in
pyproject.toml's addopts): each worker takes whole files, a notebook (nbval runs its cells one
after another in one kernel) or a test file (its module fixtures are built once). Each worker,
and the kernels it starts, get an equal share of the cores as threads, so that ``-n auto`` does
not run N workers of N threads each. The built site, which tests in three files read, is built
once for all workers (``tests/conftest.py``, ``course_site``).
"""

from __future__ import annotations

import os
import sys

import pytest


def pytest_configure(config: pytest.Config) -> None:
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers and "OMP_NUM_THREADS" not in os.environ:
        threads = max(1, (os.cpu_count() or 1) // int(workers))
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = str(threads)
        # The variables reach the kernels; the worker's own torch read them when it was
        # imported (tests/conftest.py, before this hook), so it is told directly. Left at every
        # core, two workers' unit tests ran 4 threads on 2 cores, and a test of tiny models
        # took 9 s instead of 1.5 s (threads waiting for each other).
        if "torch" in sys.modules:
            sys.modules["torch"].set_num_threads(threads)
