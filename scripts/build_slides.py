"""Build offline reveal.js slides for the course notebooks (lecture mode).

Usage::

    python scripts/build_slides.py                         # every notebook -> _build/slides/
    python scripts/build_slides.py notebooks/03_*.ipynb    # some of them
    python scripts/build_slides.py --out /tmp/slides

Each notebook becomes ``<name>.slides.html`` (solutions under ``solutions/``) next to an
``index.html`` that lists the decks; reveal.js and MathJax are copied into ``_static/`` from
installed packages, so the slides work with no network. Open ``index.html`` in a browser; press
``S`` for the speaker view, ``F`` for full screen, ``Esc`` for the overview.

The slide convention (``notebooks/README.md``):

- cells are grouped by ``metadata.slideshow.slide_type`` (see ``scripts/tag_slides.py``; a notebook
  not tagged yet is tagged in memory with the same rules, never on disk);
- code is hidden and its outputs (figures, printed checks) stay, except in cells tagged
  ``slide-show-code``; a code cell with no output and hidden code leaves the deck (one that
  starts a subslide hands it, and its notes, to the next shown cell, or leaves it out where that
  cell starts a slide or subslide itself);
- ``notebooks/lectures/NN_notes.md`` holds the lecturer's speaker notes of lesson NN, shown in the
  speaker view (``S``) and never to learners. One ``## `` block per section heading (talking
  points, ``**Ask the room:**``, ``**Expected answers:**``, ``**Usual misconception:**``,
  ``**Minutes:** N``) becomes the notes of the section's first slide, question first and the
  minutes split between that slide and its subslides. After it, one ``### <cell id> · <label>``
  sub-block per subslide of the section (1-3 talking points, ``**Minutes:** n``, a share of the
  section's N): the id is that of the notebook cell that starts the subslide (slide type
  ``subslide``: a ``### `` heading or an author's split; cell ids survive edits of the text), the
  label its ``### `` heading or words for a person. It becomes that subslide's notes, headed
  "n of N min · continued" and followed by the section's name and question. Sub-blocks before the
  first ``## `` belong to the title slide (keyed by the title cell's id: what to say while the
  title is up, before the author's introduction) and its subslides ("n min · opening"; 2 minutes
  at most together). A slide or subslide without a
  sub-block gets its section's name and question and the line to add, and the build names it on
  stderr, as it does a block or sub-block that matches nothing; ``tests/test_lecture_notes.py``
  fails on either;
- the deck is 1280x720 CSS pixels shown at scale 1 in a 1280x720 window: body text 24 px, code
  18 px; each figure is shown as wide as the slide's text (1208 px), and a slide's figures are
  shrunk by one factor until the slide ends above a band of ``BAND`` px at the bottom, where the
  slide number is; the navigation arrows (shown under the mouse or keyboard focus) stand in one
  column in the slide's right padding, above the slide number. Figures come from the notebooks at twice the pixels JupyterLab shows (``helpers.plots``),
  so an enlarged figure stays sharp; ``tests/test_slides_browser.py`` checks that the smallest
  text of every figure is at least 18 px on screen;
- the deck's template, style sheet and script, and the index page, are files in
  ``scripts/slides/`` (``deck.html.j2``, ``deck.css``, ``deck.js``, ``index.html``), read at
  build time; the speaker notes are read and merged by ``scripts/_speaker_notes.py``.

The build is safe to interrupt: it writes into a fresh folder beside ``--out``, checks every copied
asset against its source (re-copying a damaged one) and only then replaces ``--out``. HTML in
markdown and outputs is sanitised (nbconvert's ``sanitize_html``).
"""

from __future__ import annotations

import argparse
import copy
import html
import importlib.util
import re
import shutil
import sys
import time
from pathlib import Path

import bleach
import nbformat
from nbconvert import SlidesExporter

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, course_notebooks  # noqa: E402
from _offline_html import (  # noqa: E402
    EXTRA_PAGES,
    build_replacing,
    course_template,
    export_page,
    markdown_notebook,
    network_loads,
    notebook_title,
    page_name,
    vendor_assets,
)
from _slide_words import DeckWords, deck_words, report  # noqa: E402
from _speaker_notes import (  # noqa: E402
    SubslideNote,
    _minutes,  # noqa: F401 -- private, read through this module by the tests
    _section_heading,
    merge_notes,
    notes_file,
    parse_notes,
    read_notes,
    read_subslide_notes,
    subslides,
)
from build_translation import edition_of  # noqa: E402
from tag_slides import SHOW_CODE_TAG, tag_notebook  # noqa: E402

DEFAULT_OUT = ROOT / "_build" / "slides"
WIDTH, HEIGHT = 1280, 720  # CSS pixels of a slide, = the projector's 720p window at scale 1
BAND = 32  # CSS pixels at the bottom of a slide with figures, left to the slide number
MARKER = ".course-slides"  # marks a folder this script built, so it may replace it
# where vendor_assets copies each package's files from (checked after copying)
ASSET_SOURCES = {
    "mathjax": ("jupyter_server_mathjax", "static"),
    "reveal.js": ("sphinx_revealjs", "_static/revealjs"),
}

__all__ = [
    "SubslideNote",
    "build_slides",
    "clean_html",
    "merge_notes",
    "parse_notes",
    "read_notes",
    "read_subslide_notes",
    "slide_notebook",
    "subslides",
    "main",
]


# ---------------------------------------------------------------- the deck


# ---------------------------------------------------------------- widgets

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
_SLIDERS = ("IntSliderModel", "FloatSliderModel", "FloatLogSliderModel")


def _widget_parts(states: dict, model_id: str) -> list[dict]:
    """The widget ``model_id`` and every widget inside it, depth first, from the saved state."""
    model = states.get(model_id)
    if model is None:
        return []
    parts = [model]
    for child in model.get("state", {}).get("children", []):
        parts += _widget_parts(states, str(child).removeprefix("IPY_MODEL_"))
    return parts


def widget_text(notebook, model_id: str) -> str:
    """What a deck shows for a widget, read from its state saved in the notebook: a progress bar
    as its last text ("reversal: 100% 200/200 steps"), sliders with their values and how to use
    them; a fixed line where the state is missing."""
    states = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    parts = _widget_parts(states, model_id)
    kinds = [part.get("model_name") for part in parts]
    values = [part.get("state", {}) for part in parts]
    if "FloatProgressModel" in kinds:
        texts = [
            html.unescape(re.sub(r"<[^>]*>", "", str(v.get("value", "")))).replace("\u2007", " ")
            for kind, v in zip(kinds, values, strict=True)
            if kind == "HTMLModel"
        ]
        return " ".join(t.strip() for t in texts if t.strip()) + " (a progress bar in Jupyter)"
    sliders = [
        f"{v.get('description', '').strip() or 'value'} = {v.get('value', 0):g}"
        for kind, v in zip(kinds, values, strict=True)
        if kind in _SLIDERS
    ]
    if sliders:
        shows = "the figure" if "ImageModel" in kinds else "the output"
        return (
            f"Interactive in Jupyter: sliders {', '.join(sliders)}. Run this cell in JupyterLab "
            f"and drag a slider: {shows} is redrawn for the new value."
        )
    return "[interactive widget: run this notebook in Jupyter to use it]"


def _describe_widgets(notebook) -> None:
    """Replace each widget output by its text (:func:`widget_text`): a deck has no kernel."""
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            view = output.get("data", {}).get(WIDGET_VIEW)
            if view is not None:
                output["data"] = {"text/plain": widget_text(notebook, view.get("model_id", ""))}


def slide_notebook(
    notebook,
    notes: dict[str, str] | None = None,
    label: str = "notebook",
    subslide_notes: dict[str, SubslideNote] | None = None,
):
    """A copy of ``notebook`` ready for the deck: tagged, code hidden unless tagged
    ``slide-show-code`` (empty code cells dropped), speaker notes merged (the sections'
    ``notes`` and the subslides' ``subslide_notes``, see :func:`merge_notes`)."""
    notebook = copy.deepcopy(notebook)
    tag_notebook(notebook)  # in memory only
    _describe_widgets(notebook)
    subslide_notes = dict(subslide_notes) if subslide_notes is not None else None
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type != "code" or SHOW_CODE_TAG in cell.metadata.get("tags", []):
            continue
        cell.metadata["slide_hide_code"] = True  # read by the template below
        slide_type = cell.metadata["slideshow"]["slide_type"]
        if cell.get("outputs") or slide_type not in ("-", "fragment", "subslide"):
            continue
        cell.metadata["slideshow"]["slide_type"] = "skip"
        if slide_type == "subslide":
            # a figure drawn here and shown by a later cell (the live slides show its code on a
            # subslide of its own): the deck drops the empty subslide; the next shown cell
            # starts it instead, with its notes, unless it starts a (sub)slide itself
            after = next(
                (c for c in notebook.cells[index + 1 :]
                 if c.metadata["slideshow"]["slide_type"] not in ("skip", "notes")),
                None,
            )  # fmt: skip
            note = (subslide_notes or {}).pop(cell.get("id", ""), None)
            if after is not None and after.metadata["slideshow"]["slide_type"] in ("-", "fragment"):
                after.metadata["slideshow"]["slide_type"] = "subslide"
                if note is not None and subslide_notes is not None:
                    subslide_notes.setdefault(after.get("id", ""), note)
    if notes or subslide_notes:
        # before the labels below, so that a subslide is still the cell that starts it
        unmatched = merge_notes(notebook, notes or {}, subslide_notes)
        if unmatched:
            print(
                f"   {label}: notes that match no section or subslide: {unmatched}", file=sys.stderr
            )
        missing = [
            cell_id
            for section, cell_id, _ in subslides(notebook)
            if cell_id not in (subslide_notes or {})
            and (section is None or section in (notes or {}))
        ]
        if missing and subslide_notes is not None:
            print(f"   {label}: subslides without their own notes: {missing}", file=sys.stderr)
    join_author_notes(notebook)
    _label_continued_subslides(notebook)
    return notebook


def join_author_notes(notebook) -> None:
    """An author's markdown cell of slide type ``notes`` (the elaboration split from a long
    cell: the notebook reads the two as one) joins the notes cell that the speaker notes put on
    its slide or subslide, after its text: each slide keeps one notes panel, the notes file's
    first. Where the slide has no other notes cell, it stays the slide's notes as it is."""
    cells, first_notes = [], None
    for cell in notebook.cells:
        kind = cell.metadata.get("slideshow", {}).get("slide_type")
        if kind in ("slide", "subslide"):
            first_notes = None
        if kind == "notes":
            if first_notes is None:
                first_notes = cell
            else:
                first_notes.source = f"{first_notes.source.rstrip()}\n\n{cell.source.strip()}"
                continue
        cells.append(cell)
    notebook.cells = cells


def _label_continued_subslides(notebook) -> None:
    """A subslide that would open with a code cell (hidden code: only its output shows) gets a
    small heading first, "<section> (continued)", so that no slide is an output with nothing to
    say what it is (for the room, and for a screen reader's list of headings)."""
    cells, section = [], None
    for cell in notebook.cells:
        heading = _section_heading(cell)
        if heading is not None:
            section = heading
        slideshow = cell.metadata.setdefault("slideshow", {})
        if cell.cell_type == "code" and slideshow.get("slide_type") == "subslide" and section:
            label = nbformat.v4.new_markdown_cell(f"#### {section}{edition_of(notebook).continued}")
            label.metadata["slideshow"] = {"slide_type": "subslide"}
            cells.append(label)
            slideshow["slide_type"] = "-"
        cells.append(cell)
    notebook.cells = cells


# The deck's template, style sheet and script are files in scripts/slides/, read at build time.
SLIDES = Path(__file__).resolve().parent / "slides"
_CSS_HERE = "{# deck.css #}"  # where deck.html.j2 takes deck.css
_JS_HERE = "{# deck.js #}"  # and deck.js
_DECKS_HERE = "<!-- the decks: one <li> a deck, written by scripts/build_slides.py -->"


def deck_template() -> str:
    """The Jinja blocks of a deck (after the course's offline head): ``slides/deck.html.j2``
    without its opening comment, with ``slides/deck.css`` and ``slides/deck.js`` put in (the
    script's slide size and bottom band filled in from ``WIDTH``, ``HEIGHT`` and ``BAND``)."""
    template = (SLIDES / "deck.html.j2").read_text(encoding="utf-8")
    template = template.split("-#}\n", 1)[1]  # the file's own comment, for its readers only
    if template.count(_CSS_HERE) != 1 or template.count(_JS_HERE) != 1:
        raise ValueError(f"{SLIDES / 'deck.html.j2'} must name {_CSS_HERE} and {_JS_HERE} once")
    script = (SLIDES / "deck.js").read_text(encoding="utf-8")
    for name, value in {"width": WIDTH, "height": HEIGHT, "band": BAND}.items():
        script = script.replace("{{ " + name + " }}", str(value))
    if "{{" in script:
        raise ValueError(f"{SLIDES / 'deck.js'} has a placeholder left unfilled")
    css = (SLIDES / "deck.css").read_text(encoding="utf-8")
    return template.replace(_CSS_HERE, css).replace(_JS_HERE, script)


# What sanitised HTML may keep: the markup markdown produces, and no script, style, frame, form,
# event handler or javascript: link. nbconvert's own clean_html keeps too little (it escapes
# headings, paragraphs and images), so the decks use this list through the same switch.
SAFE_TAGS = sorted(
    set(bleach.ALLOWED_TAGS)
    | {"h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "div", "span", "pre", "img", "del"}
    | {"table", "thead", "tbody", "tr", "th", "td", "caption", "sub", "sup", "kbd", "dl", "dt"}
    | {"dd", "details", "summary", "figure", "figcaption", "s", "u", "small", "mark", "var"}
)
SAFE_ATTRIBUTES = {
    "*": ["class", "id", "title"],
    "a": ["href", "title", "rel", "target"],
    "img": ["src", "alt", "title", "width", "height"],
    "td": ["colspan", "rowspan", "align"],
    "th": ["colspan", "rowspan", "align", "scope"],
}


def clean_html(element) -> str:
    """Sanitise HTML from markdown or an output: unsafe markup is escaped, so it shows as text."""
    element = element.decode() if isinstance(element, bytes) else str(element)
    return bleach.clean(element, tags=SAFE_TAGS, attributes=SAFE_ATTRIBUTES)


def _exporter() -> SlidesExporter:
    exporter = SlidesExporter(
        template_name="reveal",
        template_file="course_deck.html.j2",
        extra_loaders=[course_template("course_deck.html.j2", deck_template())],
    )
    exporter.sanitize_html = True  # markdown and HTML outputs go through clean_html; no JS output
    exporter.register_filter("clean_html", clean_html)
    exporter.reveal_theme = "white"
    exporter.reveal_transition = "none"
    exporter.reveal_width, exporter.reveal_height = str(WIDTH), str(HEIGHT)
    return exporter


# ---------------------------------------------------------------- assets and the output folder


def check_assets(static: Path) -> list[str]:
    """Compare every copied file under ``static`` with its source; re-copy a damaged one.

    Returns the files still wrong after the repair (empty when all is well). A file counts as
    damaged when its size differs from the source's (a copy cut short, a 0-byte file)."""
    wrong = []
    for folder, (module, inside) in ASSET_SOURCES.items():
        spec = importlib.util.find_spec(module)
        if spec is None or not spec.submodule_search_locations:
            continue  # vendor_assets has already said the package is missing
        source = Path(next(iter(spec.submodule_search_locations))) / inside
        copied = static / folder
        files = [p for p in copied.rglob("*") if p.is_file()]
        if not files:
            wrong.append(f"{folder}/ (empty)")
        for path in files:
            original = source / path.relative_to(copied)
            if not original.is_file():
                continue
            if path.stat().st_size != original.stat().st_size:
                shutil.copy2(original, path)
                if path.stat().st_size != original.stat().st_size:
                    wrong.append(str(path.relative_to(static)))
    needed = [
        "mathjax/MathJax.js",
        "mathjax/config/TeX-AMS-MML_HTMLorMML-full.js",
        "reveal.js/dist/reveal.js",
        "reveal.js/dist/reveal.css",
        "reveal.js/dist/theme/white.css",
        "reveal.js/plugin/notes/notes.js",
    ]
    wrong += [name for name in needed if not (static / name).is_file()]
    return wrong


def _lessons_folder(notebooks: list[Path], root: Path) -> Path:
    """The folder of the lessons being built (a translated edition's, or the course's), where
    the glossary and references beside them are."""
    for path in map(Path, notebooks):
        return path.parent.parent if path.parent.name == "solutions" else path.parent
    return Path(root) / "notebooks"


def _index_page(decks: list[tuple[str, str, str]]) -> str:
    """The decks' index page: ``slides/index.html`` with one link a deck."""
    rows = "\n".join(
        f'<li><a href="{html.escape(href)}" lang="{lang}">{html.escape(title)}</a></li>'
        for title, href, lang in decks
    )
    return (SLIDES / "index.html").read_text(encoding="utf-8").replace(_DECKS_HERE, rows)


def build_slides(notebooks: list[Path], out_dir: Path, root: Path = ROOT) -> list[Path]:
    """Write one deck per notebook, an index and the glossary pages (from ``root/notebooks``)
    into ``out_dir`` (replaced at the end); return the pages written (paths inside ``out_dir``)."""
    out_dir = Path(out_dir).resolve()

    def build(fresh: Path) -> list[Path]:
        return [page.relative_to(fresh) for page in _build_into(notebooks, fresh, root)]

    return [out_dir / page for page in build_replacing(out_dir, MARKER, build)]


def _build_into(notebooks: list[Path], out_dir: Path, root: Path) -> list[Path]:
    static = vendor_assets(out_dir, reveal=True)
    wrong = check_assets(static)
    if wrong:
        raise RuntimeError(f"copied assets are damaged and could not be repaired: {wrong}")
    exporter = _exporter()
    pages, decks = [], []
    for path in notebooks:
        path = Path(path)
        notes_path = notes_file(path)
        notes, subs = (
            parse_notes(notes_path.read_text(encoding="utf-8"))
            if notes_path.is_file()
            else (None, None)
        )
        notebook = slide_notebook(nbformat.read(path, as_version=4), notes, path.name, subs)
        name = page_name(path)
        language = edition_of(notebook).html_lang  # <html lang>: what a screen reader speaks
        out = out_dir / f"{name}.slides.html"
        pages.append(export_page(notebook, out, static, exporter, language))
        title = notebook_title(notebook) or path.stem
        prefix = "Solutions: " if name.parent.name == "solutions" else ""
        decks.append((prefix + title, pages[-1].relative_to(out_dir).as_posix(), language))
    for name in EXTRA_PAGES:  # notebooks link to them; a plain page, not a deck
        source = _lessons_folder(notebooks, root) / f"{name}.md"
        if source.exists():
            language = decks[0][2] if decks else "en"
            page = export_page(
                markdown_notebook(source), out_dir / f"{name}.html", static, None, language
            )
            pages.append(page)
    index = out_dir / "index.html"
    index.write_text(_index_page(decks), encoding="utf-8")
    pages.append(index)
    remote = network_loads(pages, out_dir)
    if remote:
        raise RuntimeError("the decks failed their offline check:\n  " + "\n  ".join(remote))
    return pages


def words_per_slide(notebooks: list[Path] | None = None) -> list[DeckWords]:
    """Words of prose per slide of each lesson deck (default: every lesson), measured on the
    deck notebook with its speaker notes merged (``_slide_words.deck_words``)."""
    from _course import lesson_notebooks

    decks = []
    for path in lesson_notebooks() if notebooks is None else notebooks:
        notes_path = notes_file(path)
        notes, subs = (
            parse_notes(notes_path.read_text("utf-8")) if notes_path.is_file() else ({}, {})
        )
        deck = slide_notebook(nbformat.read(path, as_version=4), notes, path.name, subs)
        decks.append(DeckWords(path.name[:2], tuple(deck_words(deck))))
    return decks


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, help="default: every notebook")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"default: {DEFAULT_OUT}")
    parser.add_argument(
        "--words",
        action="store_true",
        help="build nothing: print each lesson deck's words of prose per slide (median, largest, "
        "slides over the goal's maximum) and all decks together",
    )
    args = parser.parse_args(argv)
    if args.words:
        print(report(words_per_slide([p.resolve() for p in args.notebooks] or None)))
        return 0

    start = time.perf_counter()
    notebooks = [p.resolve() for p in args.notebooks] or course_notebooks()
    build_slides(notebooks, args.out)
    seconds = time.perf_counter() - start
    print(f"{len(notebooks)} deck(s) in {seconds:.1f} s: {args.out / 'index.html'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
