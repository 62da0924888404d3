"""Speaker notes (notebooks/lectures/NN_notes.md): one complete block per `##` section of every
lesson, no block for a heading that does not exist, one `### <cell id> · <label>` sub-block per
subslide of every lesson (under its section, in order, none for a subslide that no longer
exists), and no answer leaks into a lesson notebook."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
from _course import lesson_notebooks  # noqa: E402

NOTEBOOKS = ROOT / "notebooks"
NOTES = NOTEBOOKS / "lectures"
LESSONS = lesson_notebooks()
PARTS = ("**Ask the room:**", "**Expected answers:**", "**Usual misconception:**", "**Minutes:**")


def notebook_headings(path: Path) -> list[str]:
    """The `##` headings of a notebook's markdown cells, in order (code fences skipped)."""
    headings = []
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        if cell["cell_type"] != "markdown":
            continue
        in_fence = False
        for line in "".join(cell["source"]).splitlines():
            if line.startswith("```"):
                in_fence = not in_fence
            elif not in_fence and line.startswith("## "):
                headings.append(line[3:].strip())
    return headings


def note_blocks(path: Path) -> dict[str, str]:
    """The notes file split at its `## ` headings: heading text -> block text (the section's
    own lines, up to its first `### ` sub-block)."""
    blocks: dict[str, str] = {}
    current = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            current = line[3:].strip()
            assert current not in blocks, f"{path.name}: heading {current!r} appears twice"
            blocks[current] = ""
        elif line.startswith("### "):
            current = None
        elif current is not None:
            blocks[current] += line + "\n"
    return blocks


SUBSLIDE = re.compile(r"### (\S+) · (.+)")
FIRST_POINT = 190  # characters of a subslide's first talking point, at most


def subslide_blocks(path: Path) -> list[tuple[str | None, str, str, str]]:
    """The `### <cell id> · <label>` sub-blocks of a notes file, in order: (the `## ` section
    they stand under, None before the first; cell id; label; text)."""
    found: list[tuple[str | None, str, str, str]] = []
    section, inside = None, False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            section, inside = line[3:].strip(), False
        elif line.startswith("### "):
            match = SUBSLIDE.fullmatch(line.strip())
            assert match, f"{path.name}: {line!r} is not '### <cell id> · <label>'"
            found.append((section, match.group(1), match.group(2).strip(), ""))
            inside = True
        elif inside:
            where, cell_id, label, text = found[-1]
            found[-1] = (where, cell_id, label, text + line + "\n")
    return found


def notebook_subslides(path: Path) -> list[tuple[str | None, str, str | None]]:
    """Every slide of a lesson that takes its own sub-block (its cells' `slideshow.slide_type`,
    as committed): the title slide, then every subslide. For each: (the `##` section it belongs
    to, None before the first; the id of the cell that starts it; that cell's `### ` heading
    when it opens with one)."""
    found, section = [], None
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        lines = [line for line in "".join(cell["source"]).splitlines() if line.strip()]
        first = lines[0] if lines else ""
        if cell["cell_type"] == "markdown" and first.startswith("## "):
            section = first[3:].strip()
        kind = cell["metadata"].get("slideshow", {}).get("slide_type")
        if kind == "subslide" or (kind == "slide" and section is None):
            heading = first[4:].strip() if first.startswith("### ") else None
            found.append(
                (section, cell["id"], heading if cell["cell_type"] == "markdown" else None)
            )
    return found


def notes_for(lesson: Path) -> Path:
    return NOTES / f"{lesson.name[:2]}_notes.md"


def test_every_lesson_is_covered():
    assert [p.name[:2] for p in LESSONS][:14] == [f"{n:02d}" for n in range(14)]
    for lesson in LESSONS:
        assert notes_for(lesson).is_file(), f"missing speaker notes {notes_for(lesson).name}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name[:2])
def test_notes_match_the_lesson_headings(lesson):
    headings = notebook_headings(lesson)
    blocks = note_blocks(notes_for(lesson))
    missing = [h for h in headings if h not in blocks]
    stale = [h for h in blocks if h not in headings]
    assert not missing, f"{lesson.name}: sections without speaker notes: {missing}"
    assert not stale, f"{notes_for(lesson).name}: notes for headings not in the lesson: {stale}"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name[:2])
def test_every_block_is_complete(lesson):
    for heading, block in note_blocks(notes_for(lesson)).items():
        where = f"{notes_for(lesson).name}, section {heading!r}"
        bullets = [line for line in block.splitlines() if line.startswith("- ")]
        assert bullets, f"{where}: no talking points (bullets)"
        positions = []
        for part in PARTS:
            lines = [line for line in block.splitlines() if line.startswith(part)]
            assert len(lines) == 1, f"{where}: expected one line starting {part}"
            assert lines[0][len(part) :].strip(), f"{where}: {part} is empty"
            positions.append(block.index(lines[0]))
        assert positions == sorted(positions), f"{where}: parts out of order, expected {PARTS}"
        assert block.index(bullets[0]) < positions[0], f"{where}: talking points come first"
        minutes = re.fullmatch(r"\*\*Minutes:\*\* (\S+)", block.strip().splitlines()[-1])
        assert minutes, f"{where}: the block must end with '**Minutes:** N'"
        assert re.fullmatch(r"[1-9][0-9]*", minutes.group(1)), (
            f"{where}: minutes must be a positive integer, got {minutes.group(1)!r}"
        )


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name[:2])
def test_every_subslide_has_its_own_notes(lesson):
    """One sub-block per subslide, keyed by the id of the cell that starts it (ids survive edits
    of the cell's text), standing under the subslide's own section in the order of the deck;
    none for a cell that is gone or no longer starts a subslide. Its label is the subslide's
    `### ` heading when it has one, so a renamed heading shows up here too."""
    wanted = notebook_subslides(lesson)
    written = subslide_blocks(notes_for(lesson))
    name = notes_for(lesson).name
    ids = [cell_id for _, cell_id, _ in wanted]
    missing = [
        f"{cell_id} ({section})"
        for section, cell_id, _ in wanted
        if cell_id not in {w[1] for w in written}
    ]
    stale = [cell_id for _, cell_id, _, _ in written if cell_id not in ids]
    assert not missing, f"{name}: subslides without their own notes: {missing}"
    assert not stale, f"{name}: notes for cells that start no subslide of {lesson.name}: {stale}"
    assert [w[1] for w in written] == ids, f"{name}: sub-blocks not in the order of the subslides"
    for (section, cell_id, heading), (parent, _, label, _) in zip(wanted, written, strict=True):
        assert parent == section, (
            f"{name}: ### {cell_id} stands under {parent!r}, its subslide is in {section!r}"
        )
        if heading is not None:
            assert label == heading, (
                f"{name}: ### {cell_id} · {label!r}: the heading is {heading!r}"
            )
        else:  # words for a maintainer who opens the notes file, not a placeholder
            assert len(label.split()) >= 2, f"{name}: ### {cell_id} · {label!r}: say what it shows"


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name[:2])
def test_every_subslide_block_is_short_and_timed(lesson):
    """1-3 talking points, the first one short, and `**Minutes:** N` last; the room's question
    stays with the section (its first slide); a section's subslides leave at least a minute to
    its first slide, and a title slide and its subslides take at most 2."""
    blocks = note_blocks(notes_for(lesson))
    used: dict[str | None, int] = {}
    for section, cell_id, _, text in subslide_blocks(notes_for(lesson)):
        where = f"{notes_for(lesson).name}, ### {cell_id}"
        bullets = [line for line in text.splitlines() if line.startswith("- ")]
        assert 1 <= len(bullets) <= 3, f"{where}: {len(bullets)} talking points, expected 1-3"
        assert all(len(b) <= 300 for b in bullets), f"{where}: a talking point over 300 characters"
        # the first one shows without scrolling in a small speaker window (measured in Chromium by
        # tests/test_slides_browser.py; at 190 characters it keeps about a line to spare)
        assert len(bullets[0]) <= FIRST_POINT, f"{where}: first talking point over {FIRST_POINT}"
        assert not [part for part in PARTS[:3] if part in text], f"{where}: section parts in it"
        lines = text.strip().splitlines()
        minutes = re.fullmatch(r"\*\*Minutes:\*\* ([1-9][0-9]*)", lines[-1])
        assert minutes and text.count("**Minutes:**") == 1, (
            f"{where}: must end with '**Minutes:** N'"
        )
        used[section] = used.get(section, 0) + int(minutes.group(1))
    for section, minutes in used.items():
        if section is None:
            assert minutes <= 2, (
                f"{notes_for(lesson).name}: the title's subslides take {minutes} min"
            )
            continue
        total = int(blocks[section].strip().splitlines()[-1].split()[-1])
        assert minutes < total, (
            f"{notes_for(lesson).name}, {section!r}: its subslides take {minutes} of {total} min"
        )


def answers(block: str) -> str:
    (line,) = [line for line in block.splitlines() if line.startswith(PARTS[1])]
    return line[len(PARTS[1]) :].strip()


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name[:2])
def test_learners_do_not_see_the_answers(lesson):
    """No lesson notebook contains the text of an expected answer, nor the notes themselves."""
    text = json.dumps(json.loads(lesson.read_text(encoding="utf-8")), ensure_ascii=False)
    cells = "\n".join(
        "".join(cell["source"]) for cell in json.loads(lesson.read_text(encoding="utf-8"))["cells"]
    )
    for heading, block in note_blocks(notes_for(lesson)).items():
        answer = answers(block)
        assert answer not in cells and answer not in text, (
            f"{lesson.name} shows the expected answers of section {heading!r}"
        )
    assert "**Expected answers:**" not in cells
    assert "notebooks/lectures" not in cells and "_notes.md" not in cells


def test_minutes_add_up_to_a_plausible_lecture_length():
    for lesson in LESSONS:
        blocks = note_blocks(notes_for(lesson))
        total = sum(int(b.strip().splitlines()[-1].split()[-1]) for b in blocks.values())
        assert 15 <= total <= 120, f"{lesson.name}: {total} minutes of notes"


# --- the public lecture plan -------------------------------------------------------------------

PLAN = NOTEBOOKS / "lecture_plan.md"


def test_lecture_plan_covers_every_lesson_and_links_exist():
    text = PLAN.read_text(encoding="utf-8")
    for lesson in LESSONS:
        assert f"]({lesson.name})" in text, f"lecture plan does not link {lesson.name}"
    for target in re.findall(r"\]\(([^)#]+)\)", text):
        assert (NOTEBOOKS / target).exists(), f"lecture plan links a missing file {target}"


def test_lecture_plan_names_real_checkers_and_every_checker():
    import helpers.exercises

    public = {name for name in dir(helpers.exercises) if name.startswith("check_")}
    named = set(re.findall(r"`(check_\w+)`", PLAN.read_text(encoding="utf-8")))
    assert named <= public, f"lecture plan names unknown checkers {sorted(named - public)}"
    assert public <= named, f"checkers missing from the lecture plan {sorted(public - named)}"


def test_lecture_plan_asks_the_notes_questions_without_their_answers():
    text = PLAN.read_text(encoding="utf-8")
    assert "Expected answers" not in text and "Usual misconception" not in text
    asked = re.findall(r"^- (\d\d) \*(.+?)\*: (.+)$", text, flags=re.MULTILINE)
    questions = [q for _, _, q in asked if q.endswith("?")]
    assert len(questions) >= 60, "lecture plan should list the room questions of its sections"
    for number, heading, question in asked:
        notes = NOTES / f"{number}_notes.md"
        blocks = note_blocks(notes)
        if heading in blocks and question.endswith("?"):
            assert f"**Ask the room:** {question}" in blocks[heading], (
                f"lecture plan question for {number} {heading!r} differs from the notes"
            )
    for lesson in LESSONS:
        for heading, block in note_blocks(notes_for(lesson)).items():
            assert answers(block) not in text, (
                f"lecture plan shows the expected answers of {lesson.name}, section {heading!r}"
            )


def test_lecture_plan_run_times_are_the_course_maps():
    """The plan quotes each lesson's run time ("10: 20 s", "(run time 20 s)") from README's map."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    stated = dict(re.findall(r"^\| (\d\d) \| \[.*\| about (\d+) s \|$", readme, flags=re.M))
    plan = PLAN.read_text(encoding="utf-8")
    quoted = re.findall(r"\b(\d\d): (\d+) s\b", plan)
    quoted += re.findall(r"\]\((\d\d)_[a-z_]+\.ipynb\) \(run time (\d+) s\)", plan)
    assert len(quoted) >= 2 * len(stated), "the plan quotes too few run times"
    wrong = sorted(
        {f"{nn}: plan {s} s, README {stated[nn]} s" for nn, s in quoted if stated[nn] != s}
    )
    assert not wrong, wrong


# --- notes that say what their notebook says (lessons 11 and 13) --------------------------------

AGREEING = [p for p in LESSONS if p.name[:2] in ("11", "13")]
SOLUTIONS = NOTEBOOKS / "solutions"
DECIMAL = re.compile(r"(?<![\w.])\d+\.\d+(?![\w.])")  # 0.34, 7.6, 3162.0: not 2.3.1 or v1.2
# owner/name, once code spans are gone
REPOSITORY = re.compile(r"\b[A-Za-z][\w.-]+/[A-Za-z][\w.-]*\w")


def notebook_sections(path: Path) -> dict[str | None, str]:
    """Each `##` section of a notebook as text: its markdown, code, printed output and figures'
    text alternatives (what comes before the first section under the key None)."""
    sections: dict[str | None, str] = {None: ""}
    current = None
    for cell in json.loads(path.read_text(encoding="utf-8"))["cells"]:
        source = "".join(cell["source"])
        if cell["cell_type"] == "markdown" and source.startswith("## "):
            current = source.splitlines()[0][3:].strip()
            sections[current] = ""
        outputs = [
            "".join(out.get("text", "")) + "".join(out.get("data", {}).get("text/plain", ""))
            for out in cell.get("outputs", [])
        ]
        alt = cell["metadata"].get("alt", "")
        sections[current] += source + "\n" + "\n".join(outputs) + "\n" + alt + "\n"
    return sections


def _solution_text(lesson: Path) -> str:
    solution = SOLUTIONS / lesson.name
    return "\n".join(notebook_sections(solution).values()) if solution.is_file() else ""


@pytest.mark.parametrize("lesson", LESSONS, ids=lambda p: p.name[:2])
def test_numbers_in_the_subslide_notes_are_the_notebooks(lesson):
    """Every decimal number a subslide's notes quote appears in its section of the notebook
    (text, code, output or a figure's text alternative) or in the worked solutions."""
    sections = notebook_sections(lesson)
    solution = _solution_text(lesson)
    for section, cell_id, _, text in subslide_blocks(notes_for(lesson)):
        missing = [
            number
            for number in DECIMAL.findall(text)
            if number not in sections[section] and number not in solution
        ]
        assert not missing, f"{notes_for(lesson).name}, ### {cell_id}: not in the lesson: {missing}"


@pytest.mark.parametrize("lesson", AGREEING, ids=lambda p: p.name[:2])
def test_numbers_in_the_notes_are_the_notebooks(lesson):
    """Every decimal number a notes section quotes appears in the same section of the notebook
    (text, code or output) or in the worked solutions: notes cannot drift from the run."""
    sections = notebook_sections(lesson)
    solution = _solution_text(lesson)
    for heading, block in note_blocks(notes_for(lesson)).items():
        missing = [
            number
            for number in DECIMAL.findall(block)
            if number not in sections[heading] and number not in solution
        ]
        assert not missing, (
            f"{notes_for(lesson).name}, {heading!r}: numbers not in the lesson: {missing}"
        )


def _source_paragraph(section: str) -> str:
    # a paragraph may open a cell of its own (an elaboration split off for the speaker view)
    (paragraph,) = [p.strip() for p in section.split("\n\n") if p.strip().startswith("**Source.**")]
    return paragraph


def _repositories(text: str) -> set[str]:
    return set(REPOSITORY.findall(re.sub(r"`[^`]*`", "", text)))


def test_each_bug_of_the_notes_is_the_notebooks_bug():
    """Lesson 13: the notes of "Bug N" name the sources of the notebook's bug N (the same
    repositories, or "constructed"), so a notes block cannot describe another bug."""
    lesson = NOTEBOOKS / "13_bugs_clinic.ipynb"
    sections = notebook_sections(lesson)
    blocks = note_blocks(notes_for(lesson))
    bugs = [h for h in sections if h and re.match(r"(Going deeper \(optional\): )?Bug \d+:", h)]
    assert len(bugs) == 14
    for heading in bugs:
        source = _source_paragraph(sections[heading])
        named = _repositories(blocks[heading])
        assert named == _repositories(source), (
            f"13_notes.md, {heading!r}: names {sorted(named)}, the notebook's source "
            f"{sorted(_repositories(source))}"
        )
        if "constructed" in source.lower():
            assert "constructed" in blocks[heading].lower(), f"{heading!r}: say it is constructed"
