"""Live slides in JupyterLab (jupyterlab-rise), followed as a lecturer would, in Chromium.

Starts ``jupyter lab`` (no browser, a free local port, a token) in a temporary copy of lesson 06
and its folder's ``rise.css`` (presenting from a copy, as notebooks/guide_lecturers.md's "Live, in JupyterLab"
says), opens it in Debian's ``chromium`` driven by Playwright at 1280x720 and follows that guide:

1. open the lesson, click its set-up cell (the first code cell) and run it (``Shift+Enter``);
2. ``Alt+R``: the slideshow opens beside the notebook; ``F``: full screen;
3. ``Space`` to the first slide with code, run its first code cell with ``Ctrl+Enter``.

It checks that the cell runs without an error (the set-up cell is hidden from the slides, so
without step 1 it fails with ``NameError: name 'torch' is not defined``), that its result is on
screen and the slide has not moved, that body text is at least 24 px and code 18 px on screen,
and that no request leaves the machine (every URL but the local server's is recorded and
aborted). About 30 s on 2 cores. Skips with a message where Playwright or Chromium is missing;
runs when named on the command line or with COURSE_BROWSER_TESTS=1, like the other browser tests.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from _browser import CHROMIUM, LAUNCH_ARGS, own_step, skip_reason

ROOT = Path(__file__).resolve().parents[1]
LESSON = ROOT / "notebooks" / "06_scaled_dot_product_attention.ipynb"
WIDTH, HEIGHT = 1280, 720
MIN_BODY_PX, MIN_CODE_PX = 24.0, 18.0
TOKEN = "rise-test-token"


_SKIP = skip_reason(jupyterlab_rise="jupyterlab-rise")
pytestmark = pytest.mark.skipif(_SKIP is not None, reason=_SKIP or "")


@pytest.fixture(scope="module", autouse=True)
def _own_step(request):
    """Starting JupyterLab takes a while: runs when this file is named on the command line or
    with COURSE_BROWSER_TESTS=1, not in a plain run."""
    own_step(request)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    """``jupyter lab`` serving a copy of the lesson folder's files; yields (base URL, folder)."""
    home = tmp_path_factory.mktemp("rise")
    present = home / "present"  # the lecturer's copy (guide for lecturers: present from a copy)
    present.mkdir()
    shutil.copy(LESSON, present)
    shutil.copy(ROOT / "notebooks" / "rise.css", present)
    port = _free_port()
    env = dict(
        os.environ,
        PYTHONPATH=str(ROOT),  # the kernel imports this checkout's helpers
        JUPYTER_CONFIG_DIR=str(home / "config"),  # no user settings, workspaces or news state
        JUPYTERLAB_SETTINGS_DIR=str(home / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
    )
    command = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser", "--allow-root",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={present}",
        "--ServerApp.disable_check_xsrf=True",
    ]  # fmt: skip
    log = (home / "server.log").open("w")
    server = subprocess.Popen(command, cwd=present, env=env, stdout=log, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 90
        while True:
            if server.poll() is not None:
                pytest.fail(f"jupyter lab exited:\n{(home / 'server.log').read_text()[-3000:]}")
            try:
                urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=2)
                break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail("jupyter lab did not answer within 90 s")
                time.sleep(0.5)
        yield base, present
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


# Runs in the slideshow's frame: the on-screen font sizes on the current slide (CSS size x the
# scale of any transform above it, which reveal uses to fit the slide in the window).
_MEASURE = r"""
() => {
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  const scale = el => el.getBoundingClientRect().width / (el.offsetWidth || 1);
  const shown = el => {
    const box = el.getBoundingClientRect();
    return box.width > 0 && box.height > 0 && el.textContent.trim() !== '';
  };
  const sizes = selector => [...slide.querySelectorAll(selector)].filter(shown).map(
    el => parseFloat(getComputedStyle(el).fontSize) * scale(slide.closest('.slides') || slide));
  return {
    body: sizes('.jp-RenderedMarkdown p, .jp-RenderedMarkdown li, .jp-RenderedMarkdown td'),
    code: sizes('.jp-InputArea-editor .cm-line'),
    output: sizes('.jp-OutputArea-output pre'),
    window: [innerWidth, innerHeight],
  };
}
"""

# The first code cell shown on the current slide (the set-up cell, "skip", is there but hidden).
_FIRST_CODE_CELL = r"""
(() => [...document.querySelectorAll('.reveal .slides section.present:not(.stack) .jp-CodeCell')]
  .find(el => el.getBoundingClientRect().height > 0))
"""
# The first code cell of the current slide: where it is, what it printed, whether it is on screen.
_FIRST_CODE = r"""
() => {
  const cell = FIRST_CODE_CELL();
  if (!cell) return null;
  const outputs = [...cell.querySelectorAll('.jp-OutputArea-output')];
  const box = el => { const r = el.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right]; };
  return {
    source: cell.querySelector('.cm-content').textContent.slice(0, 80),
    prompt: (cell.querySelector('.jp-InputPrompt') || {}).textContent || '',
    text: outputs.map(el => el.textContent).join('\n'),
    errors: outputs.filter(el => el.matches(
      '[data-mime-type="application/vnd.jupyter.stderr"]') || el.querySelector('.jp-RenderedText[data-mime-type="application/vnd.jupyter.stderr"]')).length,
    boxes: outputs.map(box),
  };
}
"""


# The notebook's kernel indicator: "initializing" while the kernel starts, then "idle". Running a
# cell before that loses the run (its prompt goes blank), so the lecturer waits for "Idle".
_KERNEL_READY = r"""
() => {
  const indicator = document.querySelector('.jp-NotebookPanel .jp-Notebook-ExecutionIndicator');
  const status = indicator && indicator.dataset.status;
  if (status && status !== 'idle') window.__kernelStarting = true;
  return window.__kernelStarting === true && status === 'idle';
}
"""


_MARK_OLD_OUTPUTS = r"""
() => FIRST_CODE_CELL().querySelectorAll('.jp-OutputArea-output').forEach(el => { el.dataset.committed = '1'; })
"""
_NEW_OUTPUT = r"""
() => {
  const cell = FIRST_CODE_CELL();
  const outputs = cell ? [...cell.querySelectorAll('.jp-OutputArea-output')] : [];
  return outputs.length > 0 && outputs.every(el => !el.dataset.committed);
}
"""


_FIRST_CODE, _MARK_OLD_OUTPUTS, _NEW_OUTPUT = (
    script.replace("FIRST_CODE_CELL()", _FIRST_CODE_CELL.strip() + "()")
    for script in (_FIRST_CODE, _MARK_OLD_OUTPUTS, _NEW_OUTPUT)
)


def _on_screen(box: list[float]) -> bool:
    top, bottom, left, right = box
    return top >= 0 and bottom <= HEIGHT and left >= 0 and right <= WIDTH and bottom > top


def test_live_slides_run_from_the_first_shown_cell(lab):
    from playwright.sync_api import sync_playwright

    base, present = lab
    committed = LESSON.read_bytes()
    leaks: list[str] = []

    def guard(route):
        url = route.request.url
        if url.startswith((base + "/", "data:", "blob:", "about:")):
            route.continue_()
        else:
            leaks.append(url)
            route.abort()

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        context.route("**/*", guard)
        page = context.new_page()
        try:
            # 1. open the lesson and run its set-up cell (the first code cell)
            page.goto(f"{base}/lab/tree/{LESSON.name}?token={TOKEN}")
            setup = page.locator(".jp-NotebookPanel .jp-CodeCell").first
            setup.wait_for(timeout=60_000)
            page.wait_for_function(_KERNEL_READY, polling=100, timeout=90_000)
            setup.locator(".jp-InputPrompt").click()
            page.keyboard.press("Shift+Enter")
            page.wait_for_function(
                "() => /\\[1\\]/.test(document.querySelector("
                "'.jp-NotebookPanel .jp-CodeCell .jp-InputPrompt').textContent)",
                timeout=60_000,
            )
            # 2. Alt+R (command mode, as after Shift+Enter): the slideshow opens beside it
            page.keyboard.press("Escape")
            page.keyboard.press("Alt+r")
            deadline = time.monotonic() + 60
            frame = None
            while frame is None:
                assert time.monotonic() < deadline, "the RISE slideshow did not open in 60 s"
                frames = [f for f in page.frames if "/rise/" in f.url]
                if frames and frames[0].evaluate(
                    "() => !!document.querySelector('.reveal .slides section.present:not(.stack)')"
                ):
                    frame = frames[0]
                else:
                    page.wait_for_timeout(500)
            frame.locator(".reveal .slides section.present:not(.stack) .jp-Cell").first.click()
            page.keyboard.press("Escape")
            page.keyboard.press("f")  # full screen
            frame.wait_for_function(f"() => innerWidth === {WIDTH}", timeout=10_000)
            frame.wait_for_timeout(1000)
            title = frame.evaluate(_MEASURE)
            # 3. Space to the first slide with code
            for _ in range(10):
                if frame.evaluate(_FIRST_CODE) is not None:
                    break
                page.keyboard.press("Space")
                frame.wait_for_timeout(800)
            before = frame.evaluate(_FIRST_CODE)
            assert before is not None, "no code cell on the first ten slides"
            where = frame.evaluate("() => location.hash")
            # mark the committed outputs: the run replaces them with new ones
            frame.evaluate(_MARK_OLD_OUTPUTS)
            cell = frame.locator(
                ".reveal .slides section.present:not(.stack) .jp-CodeCell:visible"
            ).first
            cell.locator(".cm-content").click()  # click in the code, as the lecturer does
            page.keyboard.press("Control+Enter")
            frame.wait_for_function(_NEW_OUTPUT, timeout=60_000)
            frame.wait_for_timeout(1500)  # reveal re-syncs the layout when an output appears
            after = frame.evaluate(_FIRST_CODE)
            moved_to = frame.evaluate("() => location.hash")
            in_view_at_once = bool(after and after["boxes"]) and all(
                _on_screen(box) for box in after["boxes"]
            )
            if not in_view_at_once:
                # a slide taller than the window scrolls (metadata rise.scroll): the lecturer
                # scrolls it with the mouse wheel, as in the notebook
                page.mouse.move(WIDTH / 2, HEIGHT / 2)
                page.mouse.wheel(0, HEIGHT)
                frame.wait_for_timeout(800)
                after = frame.evaluate(_FIRST_CODE)
            after["in_view_at_once"] = in_view_at_once
            sizes = frame.evaluate(_MEASURE)
        except Exception:
            page.screenshot(path=str(present.parent / "failure.png"))
            print(f"screenshot: {present.parent / 'failure.png'}")
            raise
        finally:
            browser.close()

    report = json.dumps({"title": title, "code slide": sizes, "cell": after}, indent=1)
    assert "Error" not in after["text"] and after["errors"] == 0, (
        f"the first shown code cell failed:\n{after['text']}"
    )
    assert after["boxes"], f"the cell printed nothing:\n{report}"
    assert moved_to == where, f"running the cell moved the slideshow from {where} to {moved_to}"
    assert all(_on_screen(box) for box in after["boxes"]), (
        f"the result is off screen, even after scrolling the slide:\n{report}"
    )
    body = title["body"] + sizes["body"]
    code = sizes["code"] + sizes["output"]
    assert body and code, f"nothing measured:\n{report}"
    assert min(body) >= MIN_BODY_PX - 0.5, f"text below {MIN_BODY_PX} px:\n{report}"
    assert min(code) >= MIN_CODE_PX - 0.5, f"code below {MIN_CODE_PX} px:\n{report}"
    assert not leaks, f"requests left the machine: {sorted(set(leaks))}"
    assert LESSON.read_bytes() == committed, "presenting changed the course's own notebook"
    print(report, f"\nrequests to other hosts: {sorted(set(leaks))}")
