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


# The site's own tests build the whole site (three editions) and open pages in Chromium: minutes
# of CPU that a learner's `pytest` does not need, so they run as their own command, as `.ci/run`
# runs them (issue 37: the README's `pytest` within 6 minutes on 2 cores).
SITE_TEST_FILES = ("test_site.py", "test_site_editions.py")
SITE_TESTS_SKIPPED = (
    "the site's tests run on their own: COURSE_SITE_TESTS=1 pytest tests/test_site.py "
    "tests/test_site_editions.py (builds the site; or COURSE_SITE_DIR=<a built site>)"
)


def site_tests_enabled() -> bool:
    """Whether this run tests the site: ``COURSE_SITE_TESTS=1`` or a built ``COURSE_SITE_DIR``."""
    return os.environ.get("COURSE_SITE_TESTS") == "1" or bool(os.environ.get("COURSE_SITE_DIR"))


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if site_tests_enabled():
        return
    skip = pytest.mark.skip(reason=SITE_TESTS_SKIPPED)
    for item in items:
        if item.path.name in SITE_TEST_FILES:
            item.add_marker(skip)


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
