"""How `pytest` spreads the suite over workers (pytest-xdist, ``-n auto --dist loadfile`` in
pyproject.toml's addopts): each worker takes whole files, a notebook (nbval runs its cells one
after another in one kernel) or a test file (its module fixtures are built once). Each worker,
and the kernels it starts, get an equal share of the cores as threads, so that ``-n auto`` does
not run N workers of N threads each. The built site, which tests in three files read, is built
once for all workers (``tests/conftest.py``, ``course_site``).
"""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    workers = os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    if workers and "OMP_NUM_THREADS" not in os.environ:
        threads = str(max(1, (os.cpu_count() or 1) // int(workers)))
        os.environ["OMP_NUM_THREADS"] = os.environ["MKL_NUM_THREADS"] = threads
