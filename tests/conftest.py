"""Fixtures shared by the unit tests, and the round-off fuzz option."""

from __future__ import annotations

import os
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


@pytest.fixture(scope="session")
def course_site(tmp_path_factory) -> Path:
    """The whole course's static site (both editions), built once per pytest session for every
    test that reads it (``tests/test_site.py``, ``test_site_editions.py``,
    ``test_accessibility_browser.py``): a build takes about 35 s of CPU on 2 cores, and each file
    used to build its own. ``COURSE_SITE_DIR``, when set, names a site built beforehand (as
    ``.ci/run`` builds it once for its browser steps): its first folder is used, nothing is built.
    """
    if os.environ.get("COURSE_SITE_DIR"):
        first = os.environ["COURSE_SITE_DIR"].split(os.pathsep)[0]
        return Path(first).resolve()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
    import build_site
    from filelock import FileLock

    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return build_site.build_site(tmp_path_factory.mktemp("site") / "site")
    # under pytest-xdist the workers share the parent of their temporary folders: the first to
    # get the lock builds the site there, the others wait for it and use it
    shared = tmp_path_factory.getbasetemp().parent / "course-site"
    with FileLock(str(shared) + ".lock"):
        if not (shared / "built").is_file():
            build_site.build_site(shared / "site")
            (shared / "built").write_text("ok\n")
    return shared / "site"
