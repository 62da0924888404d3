"""Slides: the tagging rules of scripts/tag_slides.py (every notebook carries them, authored
subslides survive), the deck build of scripts/build_slides.py (code hidden unless tagged, speaker
notes merged, HTML sanitised, fresh-folder build, damaged assets repaired) and RISE in JupyterLab
(installed, and every lesson carrying the live-slide settings scripts/tag_slides.py writes).

The real-browser checks (fit at 1280x720, text sizes, speaker view) are in
tests/test_slides_browser.py; the live slideshow in JupyterLab in tests/test_rise_browser.py."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

import build_slides  # noqa: E402
import tag_slides  # noqa: E402
from _course import course_notebooks, lesson_notebooks  # noqa: E402

NOTEBOOKS = course_notebooks()


def _slide_types(notebook) -> list[str | None]:
    return [cell.metadata.get("slideshow", {}).get("slide_type") for cell in notebook.cells]


def _lesson() -> nbformat.NotebookNode:
    """A small notebook shaped like a lesson, with outputs and an author's fragment."""
    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell

    def printing(code: str, count: int, printed: str):
        stream = nbformat.v4.new_output("stream", name="stdout", text=printed)
        return new_code(code, execution_count=count, outputs=[stream])

    cells = [
        new_md("# 99 · A lesson\n\nWhat you will learn. Estimated run time: 1 s."),
        new_code("import helpers\nhelpers.seed_everything(0)", execution_count=1),
        new_md("## First section\n\nA question."),
        printing("print(1 + 1)", 2, "2\n"),
        new_md("\n### A detail\n\nMore."),
        new_md("Plain prose, not a heading: ## inside a line."),
        new_code("x = 3", execution_count=3),
        new_md("Second half of the section, split by the author."),
        printing("print('shown')", 4, "shown\n"),
        new_md("## Exercises"),
    ]
    cells[6].metadata["slideshow"] = {"slide_type": "fragment"}
    cells[7].metadata["slideshow"] = {"slide_type": "subslide"}
    cells[8].metadata["tags"] = [tag_slides.SHOW_CODE_TAG]
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    return notebook


def test_rules_give_each_cell_its_slide_type():
    notebook = _lesson()
    changed = tag_slides.tag_notebook(notebook)
    assert _slide_types(notebook) == [
        "slide",
        "-",  # the set-up cell: on the title slide, the live slideshow's first code cell
        "slide",
        "-",
        "subslide",
        "-",
        "fragment",
        "subslide",
        "-",
        "slide",
    ]
    assert changed == 8  # every cell but the author's fragment and subslide


def test_tagging_changes_only_slide_metadata():
    notebook = _lesson()
    before = copy.deepcopy(notebook)
    tag_slides.tag_notebook(notebook)
    for old, new in zip(before.cells, notebook.cells, strict=True):
        assert new.source == old.source
        assert new.get("outputs") == old.get("outputs")
        assert new.get("execution_count") == old.get("execution_count")
        assert set(new.metadata) - {"slideshow"} == set(old.metadata) - {"slideshow"}


def test_a_wrong_slide_type_is_corrected_and_other_slideshow_keys_kept():
    notebook = _lesson()
    notebook.cells[2].metadata["slideshow"] = {"slide_type": "-", "data": {"x": "1"}}
    notebook.cells[3].metadata["slideshow"] = {"slide_type": "slide"}
    tag_slides.tag_notebook(notebook)
    assert notebook.cells[2].metadata["slideshow"] == {"slide_type": "slide", "data": {"x": "1"}}
    assert notebook.cells[3].metadata["slideshow"] == {"slide_type": "-"}


def test_script_is_idempotent_and_check_mode_writes_nothing(tmp_path, capsys):
    path = tmp_path / "99_lesson.ipynb"
    nbformat.write(_lesson(), path)
    untagged = path.read_bytes()

    assert tag_slides.main([str(path), "--check"]) == 1
    assert path.read_bytes() == untagged, "--check must not write"

    assert tag_slides.main([str(path)]) == 0
    tagged = path.read_bytes()
    assert tagged != untagged
    mtime = path.stat().st_mtime_ns

    assert tag_slides.main([str(path)]) == 0
    assert path.read_bytes() == tagged and path.stat().st_mtime_ns == mtime, "rewrote a tagged file"
    assert tag_slides.main([str(path), "--check"]) == 0
    assert "already tagged" in capsys.readouterr().out

    outputs = [c.get("outputs") for c in nbformat.read(path, as_version=4).cells]
    assert outputs[3][0]["text"] == "2\n"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_every_notebook_carries_slide_metadata(path):
    notebook = nbformat.read(path, as_version=4)
    missing = [i for i, t in enumerate(_slide_types(notebook)) if t is None]
    assert not missing, (
        f"{path.name}: cells {missing} have no slide type; run scripts/tag_slides.py"
    )
    assert tag_slides.tag_notebook(notebook) == 0, (
        f"{path.name}: slide types do not follow the rules; run scripts/tag_slides.py"
    )


def test_authored_choices_round_trip_by_cell_id(tmp_path):
    base = _lesson()
    notebook = copy.deepcopy(base)
    tag_slides.tag_notebook(notebook)
    choices = tag_slides.authored_choices(notebook)
    ids = [cell.id for cell in notebook.cells]
    # rule-given types (title, set-up cell, ### subslide) are not authored choices
    assert choices == {
        ids[6]: {"slide_type": "fragment"},
        ids[7]: {"slide_type": "subslide"},
        ids[8]: {"show_code": True},
    }
    fresh = copy.deepcopy(base)
    for cell in fresh.cells:
        cell.metadata.pop("slideshow", None)
        cell.metadata.pop("tags", None)
    assert tag_slides.apply_authored(fresh, {**choices, "gone": {"slide_type": "skip"}}) == ["gone"]
    assert _slide_types(fresh) == _slide_types(notebook)
    assert fresh.cells[8].metadata["tags"] == [tag_slides.SHOW_CODE_TAG]

    path = tmp_path / "99_lesson.ipynb"
    tag_slides.configure_rise(fresh)  # --check asks a lesson for the live-slide settings too
    nbformat.write(fresh, path)
    record = tmp_path / "choices.json"
    record.write_text(json.dumps({str(path): choices}), encoding="utf-8")
    assert tag_slides.main([str(path), "--apply", str(record), "--check"]) == 0


# ---------------------------------------------------------------- the deck build


def test_code_is_hidden_on_slides_unless_tagged():
    deck = build_slides.slide_notebook(_lesson())
    by_source = {cell.source: cell for cell in deck.cells}
    assert by_source["print(1 + 1)"].metadata["slide_hide_code"] is True
    assert "slide_hide_code" not in by_source["print('shown')"].metadata
    assert by_source["x = 3"].metadata["slideshow"]["slide_type"] == "skip", "empty and hidden"
    assert by_source["print(1 + 1)"].metadata["slideshow"]["slide_type"] == "-"


def test_an_empty_code_subslide_leaves_the_deck_and_hands_on_its_start(capsys):
    """A figure drawn on a subslide of its own and shown by a later cell (the live slides show
    the drawing code there): the deck has no empty subslide; where the next cell continues it,
    that cell starts the subslide and takes its notes."""
    from _speaker_notes import SubslideNote

    def image(code: str):
        png = nbformat.v4.new_output("display_data", data={"image/png": "iVBORw0KGgo="})
        return nbformat.v4.new_code_cell(code, execution_count=1, outputs=[png])

    new_md, new_code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [
        new_md("# 99 · A lesson"),
        new_code("import helpers"),  # the set-up cell, on the title slide
        new_md("## A section"),
        new_code("fig = draw()"),
        image("fig"),
        new_code("fig2 = draw()"),
        image("fig2"),
    ]
    for index, kind in [(3, "subslide"), (4, "subslide"), (5, "subslide"), (6, "-")]:
        cells[index].metadata["slideshow"] = {"slide_type": kind}
    notebook = nbformat.v4.new_notebook(cells=cells)
    notes = {
        cell.id: SubslideNote("A section", cell.id, "x", f"- {cell.source}\n\n**Minutes:** 1", 1)
        for cell in cells[3:6]
    }
    deck = build_slides.slide_notebook(notebook, {"A section": "- a\n\n**Minutes:** 5"}, "t", notes)
    shown = [[c.source for c in group if c.cell_type == "code"] for group in _slides(deck)]
    assert [group for group in shown if group] == [["fig"], ["fig2"]], shown
    assert all(group for group in _slides(deck)), "an empty slide"
    note_text = "\n".join(c.source for c in deck.cells if _type(c) == "notes")
    assert "fig2 = draw()" in note_text, "the handed-on subslide keeps its notes"
    assert "- fig = draw()" not in note_text, "the dropped subslide's notes left with it"
    assert "notes that match no" not in capsys.readouterr().err


NOTES = """# Speaker notes, lesson 99

### {title} · Title slide

- Open with the question of the lesson.

**Minutes:** 1

## First section

- Ask what a set is.

**Ask the room:** does order matter?
**Minutes:** 5

### {detail} · A detail

- Point at the printed 2: one line, no figure.

**Minutes:** 2

### {second} · Second half

- Read the second half aloud.

**Minutes:** 1

### gone-cell · A subslide deleted from the lesson

- never merged either

**Minutes:** 1

## Not a section of the lesson

- never merged
"""


def _notes_for(notebook) -> str:
    """NOTES with the ids of the lesson's title cell and its two subslide cells (the ###
    heading, the author's)."""
    return NOTES.format(
        title=notebook.cells[0].id, detail=notebook.cells[4].id, second=notebook.cells[7].id
    )


def test_notes_become_reveal_notes_of_their_section(tmp_path):
    notebook = _lesson()
    path = tmp_path / "99_notes.md"
    path.write_text(_notes_for(notebook), encoding="utf-8")
    notes = build_slides.read_notes(path)
    subs = build_slides.read_subslide_notes(path)
    assert list(notes) == ["First section", "Not a section of the lesson"]
    assert notes["First section"].startswith("- Ask what a set is.")
    assert notes["First section"].endswith("**Minutes:** 5"), "a sub-block is not its section's"
    assert list(subs) == [notebook.cells[i].id for i in (0, 4, 7)] + ["gone-cell"]
    detail = subs[notebook.cells[4].id]
    assert (detail.section, detail.label, detail.minutes) == ("First section", "A detail", 2)

    tag_slides.tag_notebook(notebook)
    assert build_slides.subslides(notebook) == [
        (None, notebook.cells[0].id, None),  # the title slide, before the first section
        ("First section", notebook.cells[4].id, "A detail"),
        ("First section", notebook.cells[7].id, None),  # the author's split: no ### heading
    ]
    unmatched = build_slides.merge_notes(notebook, notes, subs)
    assert unmatched == ["Not a section of the lesson", "### gone-cell"]
    index = next(i for i, c in enumerate(notebook.cells) if c.source.startswith("## First"))
    note = notebook.cells[index + 1]
    assert note.metadata["slideshow"] == {"slide_type": "notes"}
    # the question first (above the fold of a speaker window), then the talking points
    assert note.source.startswith("**Ask the room:** does order matter?")
    assert note.source.index("Ask the room") < note.source.index("Ask what a set is")
    # the section's minutes, split between this slide and its subslides
    assert "**Minutes:** 5 for the section: 2 on this slide, 3 on its 2 subslides" in note.source
    # each subslide gets its own points under the section's name and time, not the whole block
    for start, points, minutes in (("\n### A detail", "printed 2", 2), ("Second half", "aloud", 1)):
        at = next(i for i, c in enumerate(notebook.cells) if c.source.startswith(start))
        own = notebook.cells[at + 1]
        assert own.metadata["slideshow"] == {"slide_type": "notes"}
        assert own.source.startswith(f"*{minutes} of 5 min · continued*")
        assert points in own.source and "Ask what a set is" not in own.source
        assert "**Minutes:**" not in own.source and "never merged" not in own.source
        assert own.source.endswith(
            "*Section: First section.* *Question for the room (first slide):* does order matter?"
        )
    # the title slide gets its own sub-block, as an opening
    assert notebook.cells[1].source == (
        "*1 min · opening, before the first section*\n\n- Open with the question of the lesson."
    )
    exercises = next(i for i, c in enumerate(notebook.cells) if c.source == "## Exercises")
    assert exercises == len(notebook.cells) - 1  # a section without notes gets none
    assert build_slides.notes_file(Path("notebooks/07_masks.ipynb")) == Path(
        "notebooks/lectures/07_notes.md"
    )


def test_a_subslide_without_its_own_notes_says_what_to_add(capsys):
    notebook = _lesson()
    text = _notes_for(notebook)
    notes, subs = build_slides.parse_notes(text)
    del subs[notebook.cells[7].id]
    deck = build_slides.slide_notebook(notebook, notes, "99_lesson", subs)
    at = next(i for i, c in enumerate(deck.cells) if c.source.startswith("Second half"))
    assert deck.cells[at + 1].source.startswith("*continued · section 5 min*")
    assert f"add `### {notebook.cells[7].id} · ...`" in deck.cells[at + 1].source
    printed = capsys.readouterr().err
    assert f"subslides without their own notes: ['{notebook.cells[7].id}']" in printed
    assert "'### gone-cell'" in printed


def test_a_title_slides_subslide_gets_opening_notes():
    """The title slide's own sub-block comes first in its speaker notes, before the author's
    introduction (a notes cell); its subslide gets its own."""
    notebook = _lesson()
    goals = nbformat.v4.new_markdown_cell("By the end you will be able to")
    goals.metadata["slideshow"] = {"slide_type": "subslide"}
    introduction = nbformat.v4.new_markdown_cell("A long introduction for the learner.")
    introduction.metadata["slideshow"] = {"slide_type": "notes"}
    notebook.cells[1:1] = [introduction, goals]
    notes, subs = build_slides.parse_notes(
        f"# Notes\n\n### {goals.id} · goals\n\n- Read the goals.\n\n**Minutes:** 1\n\n"
        + _notes_for(notebook).split("# Speaker notes, lesson 99", 1)[1]
    )
    assert subs[goals.id].section is None
    deck = build_slides.slide_notebook(notebook, notes, "99_lesson", subs)
    at = next(i for i, c in enumerate(deck.cells) if c.id == goals.id)
    assert deck.cells[at + 1].source == (
        "*1 min · opening, before the first section*\n\n- Read the goals."
    )
    (title,) = [c for c in _slides(deck)[0] if _type(c) == "notes"]
    assert title.source == (
        "*1 min · opening, before the first section*\n\n"
        "- Open with the question of the lesson.\n\nA long introduction for the learner."
    )


def _type(cell) -> str | None:
    return cell.metadata.get("slideshow", {}).get("slide_type")


def _slides(deck) -> list[list]:
    """The cells of a deck notebook grouped by slide and subslide, skipped cells left out."""
    groups: list[list] = []
    for cell in deck.cells:
        slide_type = cell.metadata.get("slideshow", {}).get("slide_type")
        if slide_type in ("slide", "subslide") or not groups:
            groups.append([])
        if slide_type != "skip":
            groups[-1].append(cell)
    return groups


@pytest.mark.parametrize("path", lesson_notebooks(), ids=[p.name[:2] for p in lesson_notebooks()])
def test_every_slide_of_a_lesson_deck_has_its_own_notes(path):
    """Built from the real notes: the first slide of each section opens its notes with the
    question for the room; every subslide (after the title slide's too) gets exactly one notes
    cell, headed by its section's name and minutes and its own minutes, with its own talking
    points and not its section's."""
    notes, subs = build_slides.parse_notes(
        build_slides.notes_file(path).read_text(encoding="utf-8")
    )
    deck = build_slides.slide_notebook(nbformat.read(path, as_version=4), notes, path.name, subs)
    section, title = None, True
    for group in _slides(deck):
        first, notes_cells = group[0], [c for c in group if _type(c) == "notes"]
        heading = build_slides._section_heading(first)
        if heading is not None:
            section, title = heading, False
        if _type(first) == "slide":
            if title:
                continue  # the lesson's title slide: no section, no notes
            assert [c.source[:17] for c in notes_cells] == ["**Ask the room:**"], (
                f"{path.name}, {section!r}: the first slide's notes must open with the question"
            )
            continue
        where = f"{path.name}, subslide in {section if not title else 'the title'!r}"
        assert len(notes_cells) == 1, f"{where}: {len(notes_cells)} notes cells"
        text = notes_cells[0].source
        own = [s for s in subs.values() if s.text.splitlines()[0] in text]
        assert len(own) == 1, f"{where}: not the notes of exactly one subslide:\n{text}"
        if title:
            head = f"*{own[0].minutes} min · opening, before the first section*"
        else:
            total = build_slides._minutes(notes[section])
            head = f"*{own[0].minutes} of {total} min · continued*"
            assert f"*Section: {section}.*" in text, f"{where}: the section's name is missing"
            first_point = next(x for x in notes[section].splitlines() if x.startswith("- "))
            assert first_point not in text, f"{where}: repeats the section's talking points"
        assert text.startswith(head), f"{where}: expected {head!r}, got {text[:120]!r}"


def _tmp_course(tmp_path) -> Path:
    notebooks = tmp_path / "notebooks"
    (notebooks / "lectures").mkdir(parents=True)
    lesson = _lesson()
    lesson.cells[2].source += "\n\n<script>alert('x')</script> <b>bold</b>"
    nbformat.write(lesson, notebooks / "99_lesson.ipynb")
    (notebooks / "lectures" / "99_notes.md").write_text(_notes_for(lesson), encoding="utf-8")
    return notebooks / "99_lesson.ipynb"


def test_deck_has_notes_hidden_code_and_sanitised_html(tmp_path):
    source = _tmp_course(tmp_path)
    pages = build_slides.build_slides([source], tmp_path / "out", root=tmp_path)
    deck = (tmp_path / "out" / "99_lesson.slides.html").read_text(encoding="utf-8")
    assert tmp_path / "out" / "99_lesson.slides.html" in pages
    assert re.search(r'<aside class="notes">.*Ask the room.*</aside>', deck, re.DOTALL)
    assert re.search(
        r'<aside class="notes">(?:(?!</aside>).)*<p><em>2 of 5 min · continued'
        r"</em></p>\s*<ul>\s*<li>Point at the printed 2",
        deck,
        re.DOTALL,
    ), "a subslide's own notes, headed by its section's name and time"
    assert "never merged" not in deck
    assert "print(1 + 1)" not in deck and "2\n</pre>" in deck, "code hidden, output kept"
    assert "print" in deck and "shown\n</pre>" in deck  # the tagged cell shows its code
    assert "<script>alert" not in deck and "&lt;script&gt;alert" in deck
    assert "<b>bold</b>" in deck and re.search(r"<h2[^>]*>First section", deck)
    assert "width: 1280, height: 720" in deck and "margin: 0" in deck


def test_build_replaces_the_output_folder_at_the_end(tmp_path, monkeypatch):
    source = _tmp_course(tmp_path)
    out = tmp_path / "out"
    build_slides.build_slides([source], out, root=tmp_path)
    (out / "stale.slides.html").write_text("from an older build", encoding="utf-8")
    build_slides.build_slides([source], out, root=tmp_path)
    assert not (out / "stale.slides.html").exists(), "pages of earlier builds stay"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notebooks", "out"], "leftovers"

    before = sorted(p.relative_to(out) for p in out.rglob("*"))

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(build_slides, "export_page", interrupted)
    with pytest.raises(KeyboardInterrupt):
        build_slides.build_slides([source], out, root=tmp_path)
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before, "output damaged"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notebooks", "out"], "leftovers"


def test_build_refuses_to_replace_a_folder_it_did_not_build(tmp_path):
    source = _tmp_course(tmp_path)
    precious = tmp_path / "precious"
    precious.mkdir()
    (precious / "thesis.tex").write_text("keep me", encoding="utf-8")
    with pytest.raises(FileExistsError, match="not built by this script"):
        build_slides.build_slides([source], precious, root=tmp_path)
    assert (precious / "thesis.tex").read_text(encoding="utf-8") == "keep me"


def test_damaged_assets_are_repaired(tmp_path):
    static = build_slides.vendor_assets(tmp_path, reveal=True)
    reveal = static / "reveal.js" / "dist" / "reveal.js"
    size = reveal.stat().st_size
    reveal.write_bytes(b"")  # what an interrupted copy leaves
    mathjax = static / "mathjax" / "MathJax.js"
    mathjax.write_bytes(mathjax.read_bytes()[:100])
    assert build_slides.check_assets(static) == []
    assert reveal.stat().st_size == size > 10_000
    notes = static / "reveal.js" / "plugin" / "notes" / "notes.js"
    notes.unlink()
    assert build_slides.check_assets(static) == ["reveal.js/plugin/notes/notes.js"]


# ---------------------------------------------------------------- live slides (RISE)


@pytest.mark.parametrize("path", lesson_notebooks(), ids=[p.name for p in lesson_notebooks()])
def test_every_lesson_carries_the_live_slide_settings(path):
    """``metadata.rise`` from scripts/tag_slides.py: the offline theme, scrolling slides."""
    notebook = json.loads(path.read_text(encoding="utf-8"))
    assert not tag_slides.configure_rise(notebook), (
        f"{path.name}: metadata.rise lacks the course's settings; run scripts/tag_slides.py"
    )


def test_rise_settings_are_idempotent_and_touch_only_their_metadata(tmp_path):
    source = ROOT / "notebooks" / "06_scaled_dot_product_attention.ipynb"
    path = tmp_path / source.name
    original = json.loads(source.read_text(encoding="utf-8"))
    del original["metadata"]["rise"]
    original["metadata"]["rise"] = {"controls": False}  # an author's own key is kept
    path.write_text(json.dumps(original, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert tag_slides.main(["--check", str(path)]) == 1
    assert tag_slides.main([str(path)]) == 0
    first = path.read_text(encoding="utf-8")
    assert tag_slides.main([str(path)]) == 0 and path.read_text(encoding="utf-8") == first
    assert tag_slides.main(["--check", str(path)]) == 0
    written = json.loads(first)
    assert written["metadata"]["rise"] == {"controls": False, **tag_slides.RISE_SETTINGS}
    assert written["cells"] == original["cells"]
    assert {k: v for k, v in written["metadata"].items() if k != "rise"} == {
        k: v for k, v in original["metadata"].items() if k != "rise"
    }
    assert (ROOT / "notebooks" / "rise.css").is_file()  # the live slides' font sizes
    solution = tmp_path / "solutions" / source.name  # not presented live: no settings
    solution.parent.mkdir()
    del original["metadata"]["rise"]
    solution.write_text(json.dumps(original, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    assert tag_slides.main(["--check", str(solution)]) == 0
    assert tag_slides.main([str(solution)]) == 0
    assert "rise" not in json.loads(solution.read_text(encoding="utf-8"))["metadata"]


def test_rise_is_installed_and_enabled_in_jupyterlab():
    jupyter = Path(sys.executable).with_name("jupyter")
    if not jupyter.exists():
        pytest.skip("no jupyter command next to this Python")
    result = subprocess.run(
        [str(jupyter), "labextension", "list"], capture_output=True, text=True, check=True
    )
    listing = re.sub(r"\x1b\[[0-9;]*m", "", result.stdout + result.stderr)
    line = next((ln for ln in listing.splitlines() if "jupyterlab-rise" in ln), "")
    assert "enabled" in line and "OK" in line, f"jupyterlab-rise not enabled:\n{listing}"
    pins = (ROOT / "requirements.txt").read_text(encoding="utf-8")
    assert re.search(r"^jupyterlab-rise==", pins, re.MULTILINE)


def test_a_subslide_of_output_only_gets_a_continued_heading():
    notebook = _lesson()
    notebook.cells[8].metadata["slideshow"] = {"slide_type": "subslide"}  # print('shown')
    notebook.cells[7].metadata["slideshow"] = {"slide_type": "-"}
    deck = build_slides.slide_notebook(notebook)
    index = next(i for i, c in enumerate(deck.cells) if "print('shown')" in c.source)
    label = deck.cells[index - 1]
    assert label.source == "#### First section (continued)"
    assert label.metadata["slideshow"] == {"slide_type": "subslide"}
    assert deck.cells[index].metadata["slideshow"]["slide_type"] == "-"
    # a subslide that opens with prose keeps it: no label added
    assert sum("(continued)" in c.source for c in deck.cells) == 1


def test_a_widget_shows_as_text_read_from_its_saved_state():
    """A deck has no kernel: a progress bar shows its last line, sliders their values and how
    to use them, and a widget without saved state a fixed line."""

    def model(name, **state):
        return {"model_name": name, "state": state}

    states = {
        "bar": model("HBoxModel", children=["IPY_MODEL_a", "IPY_MODEL_b", "IPY_MODEL_c"]),
        "a": model("HTMLModel", value="reversal:\u2007100%"),
        "b": model("FloatProgressModel", value=200.0, max=200.0),
        "c": model("HTMLModel", value="\u2007200/200\u2007steps"),
        "box": model("VBoxModel", children=["IPY_MODEL_row", "IPY_MODEL_img"]),
        "row": model("HBoxModel", children=["IPY_MODEL_t", "IPY_MODEL_base"]),
        "t": model("IntSliderModel", description="position t", value=10),
        "base": model("FloatLogSliderModel", description="base", value=10000.0),
        "img": model("ImageModel", format="png"),
    }
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell("# 99 · Widgets"),
            nbformat.v4.new_code_cell("import helpers", execution_count=1),
            nbformat.v4.new_markdown_cell("## Train"),
            nbformat.v4.new_code_cell("train()", execution_count=2),
        ]
    )
    notebook.metadata["widgets"] = {build_slides.WIDGET_STATE: {"state": states}}
    view = {"version_major": 2, "version_minor": 0, "model_id": "bar"}
    notebook.cells[3].outputs = [
        nbformat.v4.new_output("display_data", data={build_slides.WIDGET_VIEW: view})
    ]
    assert build_slides.widget_text(notebook, "bar") == (
        "reversal: 100% 200/200 steps (a progress bar in Jupyter)"
    )
    sliders = build_slides.widget_text(notebook, "box")
    assert "position t = 10, base = 10000" in sliders and "drag a slider: the figure" in sliders
    assert "run this notebook in Jupyter" in build_slides.widget_text(notebook, "gone")
    deck = build_slides.slide_notebook(notebook)
    (output,) = deck.cells[-1].outputs
    assert output["data"] == {"text/plain": build_slides.widget_text(notebook, "bar")}
    assert notebook.cells[3].outputs[0]["data"] == {build_slides.WIDGET_VIEW: view}  # untouched


# --- words of prose per slide (issue 42: the decks show the point, the notes explain) ---------

import _slide_words  # noqa: E402


def test_prose_words_leave_out_formulas_code_urls_and_tags():
    text = (
        "## The claim\n\nThe **claim**: $x^2 + y$ and `code(x, y)` with [a link](https://x.org/a/b)"
        " and <b>bold</b> words.<br>\n\n$$\\sum_i w_i = 1$$\n\n```python\nprint('not prose')\n```\n"
        "![a figure](fig.png) <!-- a comment --> e.g. it's d_model-sized 3.5 \\(a\\)"
    )
    # The claim / The claim and with a link and bold words / e.g it's d_model-sized 3.5
    assert _slide_words.prose_words(text) == 2 + 9 + 4
    assert _slide_words.prose_words("") == 0
    assert _slide_words.prose_words("| a | b |\n|---|---|\n| one cell | two |") == 5
    with pytest.raises(TypeError, match="markdown must be a str"):
        _slide_words.prose_words(None)


def test_the_goal_is_median_45_and_none_over_90():
    ok = _slide_words.DeckWords("99", (10, 45, 90))
    assert ok.meets_goal and ok.median == 45 and ok.over == 0
    assert not _slide_words.DeckWords("99", (10, 20, 91)).meets_goal  # one slide over 90
    assert not _slide_words.DeckWords("99", (46, 46, 10)).meets_goal  # the median over 45
    line = _slide_words.DeckWords("99", (10, 20, 91)).line()
    assert line == "99: 3 slides, median 20, max 91, 1 over 90: over the goal"


def _split_lesson() -> nbformat.NotebookNode:
    """The small lesson with its first section's paragraph split by the author: the statement
    stays on the slide, the elaboration is a markdown cell of slide type ``notes``; and one on
    the author's subslide too."""
    lesson = _lesson()
    elaboration = nbformat.v4.new_markdown_cell(
        "Why it holds, at length: the elaboration for the speaker view."
    )
    elaboration.metadata["slideshow"] = {"slide_type": "notes"}
    second = nbformat.v4.new_markdown_cell("More elaboration, on the subslide.")
    second.metadata["slideshow"] = {"slide_type": "notes"}
    lesson.cells.insert(8, second)  # after the author's split (cell 7)
    lesson.cells.insert(3, elaboration)  # after "## First section"
    return lesson


def test_an_authors_notes_cell_goes_to_the_speaker_view_not_the_slide(tmp_path):
    lesson = _split_lesson()
    tag_slides.tag_notebook(lesson)
    assert _type(lesson.cells[3]) == "notes" and _type(lesson.cells[9]) == "notes"  # kept
    notes, subs = build_slides.parse_notes(
        NOTES.format(title=lesson.cells[0].id, detail=lesson.cells[5].id, second=lesson.cells[8].id)
    )
    deck = build_slides.slide_notebook(lesson, notes, "99_lesson.ipynb", subs)
    groups = _slides(deck)
    for group in groups[1:-1]:  # after the title slide, before Exercises: one notes panel
        assert len([c for c in group if _type(c) == "notes"]) == 1, [c.source for c in group]
    first = next(g for g in groups if g[0].source.startswith("## First section"))
    (panel,) = [c for c in first if _type(c) == "notes"]
    assert panel.source.startswith("**Ask the room:** does order matter?")
    assert panel.source.endswith("Why it holds, at length: the elaboration for the speaker view.")
    split = next(g for g in groups if g[0].source.startswith("Second half"))
    (panel,) = [c for c in split if _type(c) == "notes"]
    assert panel.source.startswith("*1 of 5 min · continued*")
    assert panel.source.endswith("More elaboration, on the subslide.")
    # the words on the slides do not count the elaboration
    assert _slide_words.deck_words(deck)[1] == _slide_words.prose_words(first[0].source) == 4

    # and in the built deck: in the speaker notes, nowhere else
    notebooks = tmp_path / "notebooks"
    (notebooks / "lectures").mkdir(parents=True)
    nbformat.write(lesson, notebooks / "99_lesson.ipynb")
    (notebooks / "lectures" / "99_notes.md").write_text(
        NOTES.format(
            title=lesson.cells[0].id, detail=lesson.cells[5].id, second=lesson.cells[8].id
        ),
        encoding="utf-8",
    )
    build_slides.build_slides([notebooks / "99_lesson.ipynb"], tmp_path / "out", root=tmp_path)
    html_text = (tmp_path / "out" / "99_lesson.slides.html").read_text(encoding="utf-8")
    for words in ("the elaboration for the speaker view", "More elaboration, on the subslide"):
        assert html_text.count(words) == 1
        asides = re.findall(r'<aside class="notes">(?:(?!</aside>).)*</aside>', html_text, re.S)
        assert sum(words in aside for aside in asides) == 1, f"{words!r} is not in the notes"


def test_every_lesson_deck_meets_the_words_goal():
    """Every lesson deck (a new lesson's too): median at most 45 words of prose per slide, none
    over 90, and the whole course likewise. A long markdown cell is split into its statement
    (on the slide) and an elaboration cell of slide type ``notes`` (the speaker view)."""
    lessons = lesson_notebooks()
    decks = build_slides.words_per_slide(lessons)
    assert [d.name for d in decks] == [p.name[:2] for p in lessons]
    for deck in decks:
        assert deck.meets_goal, deck.line()
    every = _slide_words.DeckWords("all", tuple(w for d in decks for w in d.words))
    assert every.meets_goal, every.line()
    assert min(len(d.words) for d in decks) >= 15  # the measure sees whole decks


def test_the_words_report_prints_each_deck_and_the_total(capsys):
    assert build_slides.main(["--words", str(lesson_notebooks()[1])]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("01: ") and " over 90: " in out[0]
    assert out[-1].startswith("all decks: ")
