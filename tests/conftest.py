"""Fixtures shared by the unit tests, and the round-off fuzz option."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--roundoff-fuzz",
        action="store_true",
        help="perturb the inputs of NumPy's and torch's linear-algebra routines by ~4 ulp "
        "(scripts/roundoff_fuzz.py), as another CPU's rounding would",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--roundoff-fuzz", default=False):
        sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
        import roundoff_fuzz

        roundoff_fuzz.install()


@pytest.fixture(scope="module")
def one_thread():
    """Tiny models run much faster on one thread (and a busy 2-core machine crawls on two)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)
