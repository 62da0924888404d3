"""What the browser tests share: Debian's Chromium and the flags that run it offline, headless;
why a browser test cannot run here; and the rule that the slow ones run as their own step."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
# Without the background-networking flags Chromium keeps trying to reach Google's hosts.
LAUNCH_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def skip_reason(**packages: str) -> str | None:
    """Why a browser test cannot run here, or None: Playwright or Chromium is missing, or one of
    ``packages`` (``module="pip name"``, e.g. ``jupyterlab_rise="jupyterlab-rise"``)."""
    if importlib.util.find_spec("playwright") is None:
        return (
            "playwright is not installed (pip install -r requirements.txt); browser checks skipped"
        )
    if CHROMIUM is None:
        return "no Chromium at /usr/bin/chromium (apt-get install chromium); browser checks skipped"
    for module, name in packages.items():
        if importlib.util.find_spec(module) is None:
            return f"{name} is not installed (pip install -r requirements.txt); skipped"
    return None


def own_step(request: pytest.FixtureRequest) -> None:
    """Skip the tests of a slow browser file (minutes) unless the file was named on the command
    line (``.ci/run`` runs each as its own step) or COURSE_BROWSER_TESTS=1 is set."""
    here = Path(str(request.module.__file__)).resolve()
    named = any(Path(str(arg).split("::")[0]).resolve() == here for arg in request.config.args)
    if not named and os.environ.get("COURSE_BROWSER_TESTS") != "1":
        pytest.skip(
            f"{here.name} runs as its own step: python -m pytest tests/{here.name} "
            "(or set COURSE_BROWSER_TESTS=1)"
        )


# Sphinx's summary once a search has run: found or not, in the English or the Chinese edition.
_SEARCH_DONE = (
    "() => /found|did not match|搜索完成|没有|見つかりました|見つかりませんでした/i.test("
    "(document.querySelector('#search-results .search-summary') || {}).innerText || '')"
)


def search_results(page, timeout_ms: int = 30_000) -> list[str]:
    """The pages a site's search page (already opened with ``?q=...``) lists, best first, as
    links relative to the site without their anchors; waits for the search to finish."""
    page.wait_for_function(_SEARCH_DONE, timeout=timeout_ms)
    hrefs = page.eval_on_selector_all(
        "#search-results ul.search li a", "links => links.map(a => a.getAttribute('href'))"
    )
    return [re.sub(r"[?#].*$", "", href) for href in hrefs]


# Sphinx's own ranking for a query, in the order its search page shows the results (it pops them
# from the end of what _performSearch returns), as the links it gives them (html builder).
_RANKED = r"""async query => {
    for (let i = 0; i < 600 && !Search.hasIndex(); i++) await new Promise(r => setTimeout(r, 50));
    // as if opened with ?q=: the course's scorer (docs/scorer.js) reads the query from the URL
    history.replaceState(null, "", "?q=" + encodeURIComponent(query));
    const results = Search._performSearch(...Search._parseQuery(query));
    return results.map(r => r[0] + DOCUMENTATION_OPTIONS.LINK_SUFFIX).reverse();
}"""


def ranked_pages(page, query: str) -> list[str]:
    """The pages a site's search page, already open in ``page``, lists for ``query``, best
    first, without loading the page again: the ranking its search shows (Sphinx's
    ``Search._performSearch`` with the course's scorer, the URL's ``?q=`` set to ``query``
    as a load would set it), minus the display, which fetches every
    listed page for its snippet (seconds per query). Tests compare it with
    :func:`search_results` on the queries they run through the page."""
    return page.evaluate(_RANKED, query)
