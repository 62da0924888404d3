"""Live slides in JupyterLab (jupyterlab-rise), followed as a lecturer would, in Chromium.

Starts ``jupyter lab`` (no browser, a free local port, a token) in a temporary copy of lesson 06
and its folder's ``rise.css`` (presenting from a copy, as notebooks/guide_lecturers.md's "Live, in JupyterLab"
says; the copy carries the slide types and ``metadata.rise`` that ``scripts/tag_slides.py``
gives), opens it in Debian's ``chromium`` driven by Playwright at 1280x720 and presents it from
a fresh kernel with no step outside the slideshow:

1. open the lesson and wait for its kernel (nothing is run in the notebook);
2. ``Alt+R``: the slideshow opens beside the notebook, on the title slide; ``F``: full screen;
   the set-up cell is the first code cell shown (on the title slide or its goals subslide);
3. on every slide, run each code cell shown (``Ctrl+Enter``), then ``Space`` to the next.

It checks that every cell runs without an error (the set-up cell on the first slide sets
everything up; hidden as a skipped cell, it left every later cell failing with ``NameError``),
that the first code cell's result is on screen and the slide has not moved, that body text is at
least 24 px and code 18 px on screen, that every figure is shown at projector size: at least as
large (width and height, within ``FIGURE_SLACK_PX``) as the same figure in the lesson's offline
deck, built by ``scripts/build_slides.py`` in the test and measured in the same 1280x720 window
(the deck hides the code; a live slide that shows code above its figure leaves the figure less
room, so the lesson draws a figure in one cell and shows it in the next, ``fig``), that no request leaves the machine (every URL but the local server's is
recorded and aborted), and that no code slide is taller than the window (measured after its
cells ran: a taller one scrolls, and the lesson splits it into subslides). A few minutes on 2
cores. Skips with
a message where Playwright or Chromium is missing; runs when named on the command line or with
COURSE_BROWSER_TESTS=1, like the other browser tests.
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

import nbformat
import pytest
from _browser import CHROMIUM, LAUNCH_ARGS, own_step, skip_reason

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import tag_slides  # noqa: E402

LESSON = ROOT / "notebooks" / "06_scaled_dot_product_attention.ipynb"
WIDTH, HEIGHT = 1280, 720
MIN_BODY_PX, MIN_CODE_PX = 24.0, 18.0
TOKEN = "rise-test-token"
# A live figure is at projector size when it is at least as large, width and height, as the same
# figure in the lesson's offline deck in the same 1280x720 window (the deck hides the code, so a
# figure there takes its slide), less FIGURE_SLACK_PX (rounding of the two layouts).
FIGURE_SLACK_PX = 2.0
MAX_SLIDES = 80


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
    notebook = nbformat.read(LESSON, as_version=4)
    tag_slides.tag_notebook(notebook)  # the rules as the course's script gives them
    tag_slides.configure_rise(notebook)
    nbformat.write(notebook, present / LESSON.name)
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


# The current slide: where it is, its height against the window, its shown code cells and
# figures (on-screen sizes: the bounding box includes reveal's scale).
_SLIDE = r"""
() => {
  const slide = document.querySelector('.reveal .slides section.present:not(.stack)');
  if (!slide) return null;
  const shown = el => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const heading = slide.querySelector('h1, h2, h3, h4');
  const cells = [...slide.querySelectorAll('.jp-CodeCell')].filter(shown);
  const bottom = Math.max(0, ...[...slide.children].map(el => el.getBoundingClientRect().bottom));
  return {
    hash: location.hash,
    heading: heading ? heading.textContent.replace(/\u00b6/g, '').trim().slice(0, 60) : '',
    code: cells.length,
    height: Math.max(slide.scrollHeight, bottom - slide.getBoundingClientRect().top),
    window: innerHeight,
    // the figure as drawn in its box (object-fit: contain): the box's size at the image's ratio,
    // and the room from its top to the slide's bottom (the window's, where the slide is taller)
    figures: [...slide.querySelectorAll('.jp-OutputArea-output img')].filter(shown).map(el => {
      const r = el.getBoundingClientRect();
      const ratio = el.naturalWidth / el.naturalHeight;
      const w = Math.min(r.width, r.height * ratio);
      const bottom = Math.min(slide.getBoundingClientRect().bottom, innerHeight);
      return [Math.round(w), Math.round(w / ratio), Math.round(bottom - r.top),
              el.naturalWidth, el.naturalHeight];
    }),
  };
}
"""
_CELL = (
    "[...document.querySelectorAll('.reveal .slides section.present:not(.stack) .jp-CodeCell')]"
    ".filter(el => el.getBoundingClientRect().height > 0)[INDEX]"
)
# A shown code cell after its run: its prompt, and the text of any error it printed.
_RAN = r"""
(index) => {
  const cell = CELL;
  const prompt = (cell.querySelector('.jp-InputPrompt') || {}).textContent || '';
  const errors = [...cell.querySelectorAll('.jp-OutputArea-output')]
    .filter(el => /Traceback|\w+Error\b/.test(el.textContent)
      && el.matches('[data-mime-type="application/vnd.jupyter.stderr"], .jp-OutputArea-output'))
    .filter(el => el.dataset.mimeType === 'application/vnd.jupyter.stderr'
      || el.querySelector('[data-mime-type="application/vnd.jupyter.stderr"]'))
    .map(el => el.textContent.slice(0, 300));
  const boxes = [...cell.querySelectorAll('.jp-OutputArea-output')].map(el => {
    const r = el.getBoundingClientRect(); return [r.top, r.bottom, r.left, r.right];
  });
  return {source: cell.querySelector('.cm-content').textContent.slice(0, 60), prompt, errors, boxes};
}
""".replace("CELL", _CELL.replace("[INDEX]", "[index]"))


def _run_cell(page, frame, index: int, count: int) -> dict:
    """Click into shown code cell ``index`` of the current slide, run it (``Ctrl+Enter``) and
    wait for its prompt to show ``count``, the fresh kernel's execution count."""
    cells = frame.locator(".reveal .slides section.present:not(.stack) .jp-CodeCell:visible")
    cells.nth(index).locator(".cm-content").click()
    page.keyboard.press("Control+Enter")
    frame.wait_for_function(
        "(args) => { const cell = " + _CELL.replace("[INDEX]", "[args[0]]") + ";"
        " return cell && (cell.querySelector('.jp-InputPrompt') || {}).textContent"
        ".includes('[' + args[1] + ']'); }",
        arg=[index, count],
        timeout=60_000,
    )
    frame.wait_for_timeout(300)  # reveal re-syncs the layout when an output appears
    return frame.evaluate(_RAN, index)


def _present(page, frame) -> tuple[list[dict], list[dict], dict | None]:
    """Follow the slideshow to its end, running each code cell shown on each slide: the slides
    (hash, heading, height, figures), the runs (source, prompt, errors, moved) and the font
    sizes on the first slide with code."""
    slides, runs, sizes = [], [], None
    for _ in range(MAX_SLIDES):
        here = frame.evaluate(_SLIDE)
        for index in range(here["code"]):
            ran = _run_cell(page, frame, index, len(runs) + 1)
            ran["slide"] = here["hash"] + " " + here["heading"]
            ran["moved"] = frame.evaluate("() => location.hash") != here["hash"]
            runs.append(ran)
            if sizes is None:
                sizes = frame.evaluate(_MEASURE)
        slides.append({**frame.evaluate(_SLIDE), "hash": here["hash"]})
        page.keyboard.press("Escape")  # command mode: Space moves on, not into the code
        page.keyboard.press("Space")
        frame.wait_for_timeout(700)
        if frame.evaluate("() => location.hash") == here["hash"]:
            break  # the last slide
    return slides, runs, sizes


def deck_figures(playwright, out: Path) -> list[dict]:
    """Lesson 06's offline deck, built by the real build command into ``out`` and opened in the
    same 1280x720 window: its figures in order, each with its natural and on-screen size."""
    import test_slides_browser as decks

    decks.build_decks(out, [LESSON])
    browser, context, _ = decks.open_browser(playwright)
    try:
        report = decks.measure_deck(context, out / f"{LESSON.stem}.slides.html")
    finally:
        browser.close()
    scale = report["scale"]
    return [
        {"where": f"{row['h']}.{row['v']} cell {figure['cell']}",
         "natural": figure["natural"],
         "shown": [round(figure["shown"][0] * scale), round(figure["shown"][1] * scale)]}
        for row in report["slides"]
        for figure in row["figures"]
    ]  # fmt: skip


def smaller_than_deck(live: list[list], deck: list[dict]) -> list[str]:
    """The live figures (``[width, height, room, natural width, natural height]`` in order of
    the slideshow, with the slide's hash last) smaller on screen than the same figure in the
    deck (the n-th of each, the same picture: its natural size must agree)."""
    if [figure[3:5] for figure in live] != [figure["natural"] for figure in deck]:
        return [f"live and deck figures differ: {[f[3:5] for f in live]} vs {deck}"]
    return [
        f"{where} {w}x{h} live, {shown[0]}x{shown[1]} in the deck ({figure['where']})"
        for (w, h, _, _, _, where), figure in zip(live, deck, strict=True)
        for shown in [figure["shown"]]
        if w < shown[0] - FIGURE_SLACK_PX or h < shown[1] - FIGURE_SLACK_PX
    ]


def test_live_slides_run_every_cell_from_a_fresh_kernel(lab):
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
        deck = deck_figures(playwright, present.parent / "deck")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=LAUNCH_ARGS)
        context = browser.new_context(viewport={"width": WIDTH, "height": HEIGHT})
        context.route("**/*", guard)
        page = context.new_page()
        try:
            # 1. open the lesson; its kernel starts fresh, and nothing is run in the notebook
            page.goto(f"{base}/lab/tree/{LESSON.name}?token={TOKEN}")
            page.locator(".jp-NotebookPanel .jp-CodeCell").first.wait_for(timeout=60_000)
            page.wait_for_function(_KERNEL_READY, polling=100, timeout=90_000)
            # 2. Alt+R (command mode): the slideshow opens beside it, on the title slide
            page.locator(".jp-NotebookPanel .jp-Cell").first.click()
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
            # 3. every slide: run each code cell shown, then Space to the next
            slides, runs, sizes = _present(page, frame)
        except Exception:
            page.screenshot(path=str(present.parent / "failure.png"))
            print(f"screenshot: {present.parent / 'failure.png'}")
            raise
        finally:
            browser.close()

    tall = [
        f"{s['hash']} {s['heading']!r}: {s['height']:.0f} px"
        for s in slides
        if s["code"] and s["height"] > s["window"] + 1
    ]
    live = [[*figure, s["hash"]] for s in slides for figure in s["figures"]]
    small = smaller_than_deck(live, deck)
    figures = [f"{where} {w}x{h}" for w, h, *_, where in live]
    report = json.dumps(
        {"slides": len(slides), "cells run": len(runs), "title": title, "code slide": sizes,
         "figures": figures, "deck figures": deck, "tall code slides": tall,
         "code slide heights": {s["hash"]: round(s["height"]) for s in slides if s["code"]}},
        indent=1,
    )  # fmt: skip
    print(report)
    notebook = nbformat.read(LESSON, as_version=4)
    setup = next(c for c in notebook.cells if c.cell_type == "code").source
    assert runs and runs[0]["source"] == setup.replace("\n", "")[:60], (
        f"the slideshow's first code cell is not the set-up cell:\n{report}"
    )
    failures = [r for r in runs if r["errors"]]
    moved = [r["slide"] for r in runs if r["moved"]]
    assert len(slides) >= 10 and len(runs) >= 10, f"too few slides or cells:\n{report}"
    assert not failures, "cells failed:\n" + "\n".join(
        f"{f['slide']}: {f['source']!r}\n{f['errors'][0]}" for f in failures
    )
    assert not moved, f"running a cell moved the slideshow on: {moved}"
    assert figures, f"no figure measured:\n{report}"
    assert not small, f"live figures smaller than in the offline deck at 1280x720: {small}"
    assert all(s["height"] > 0 for s in slides), f"a slide's height was not measured:\n{report}"
    # A code slide taller than the window scrolls (rise.scroll): the lecturer scrolls while
    # talking, and the end of the code or its output is off screen. The lesson splits it.
    assert not tall, f"code slides taller than the {HEIGHT} px window: {tall}\n{report}"
    body = title["body"] + (sizes or {}).get("body", [])
    code = (sizes or {}).get("code", []) + (sizes or {}).get("output", [])
    assert body and code, f"nothing measured:\n{report}"
    assert min(body) >= MIN_BODY_PX - 0.5, f"text below {MIN_BODY_PX} px:\n{report}"
    assert min(code) >= MIN_CODE_PX - 0.5, f"code below {MIN_CODE_PX} px:\n{report}"
    assert not leaks, f"requests left the machine: {sorted(set(leaks))}"
    assert LESSON.read_bytes() == committed, "presenting changed the course's own notebook"
