"""Run and study times: the script that measures them (scripts/time_notebooks.py) does what it
says, on a scratch copy of the course; what the manifest states is current and within budget."""

from __future__ import annotations

import dataclasses
import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import course  # noqa: E402
import time_notebooks as tn  # noqa: E402
from _course import lessons  # noqa: E402

LESSONS = lessons()


def test_every_notebook_states_a_run_time():
    for lesson in LESSONS:
        assert lesson.run_s and lesson.run_s > 0, f"{lesson.file}: no run time in the manifest"
        if lesson.solutions:
            assert lesson.solutions_run_s, f"solutions/{lesson.file}: no run time"


# issue 11 item 8: every lesson in <= 30 s, the experiment lessons that train many models
# (manifest flag `trains`) in <= 45 s.
# A lesson over its budget is listed here, with its issue, as a strict xfail (none today):
# strict, so that it fails as soon as the lesson fits again.
OVER_BUDGET: dict[str, str] = {}  # none: lesson 12 measured 36-40 s on 2 idle cores (2026-11-28)


@pytest.mark.parametrize(
    "lesson",
    [
        pytest.param(x, marks=pytest.mark.xfail(strict=True, reason=OVER_BUDGET[x.stem]))
        if x.stem in OVER_BUDGET
        else x
        for x in LESSONS
    ],
    ids=lambda x: x.stem,
)
def test_lessons_state_run_times_within_the_live_budget(lesson):
    assert lesson.run_s <= lesson.budget_s, f"{lesson.file}: {lesson.run_s} s > {lesson.budget_s} s"


def test_the_training_budget_is_the_trains_flag():
    trains = [x for x in LESSONS if x.trains]
    assert trains and all(x.budget_s == 45 for x in trains)
    assert all(x.budget_s == 30 for x in LESSONS if not x.trains)


@pytest.mark.parametrize(
    ("seconds", "stated"),
    [(0.2, 1), (3.2, 4), (10.0, 10), (10.2, 15), (21, 25), (60, 60), (62, 70)],
)
def test_round_up(seconds, stated):
    assert tn.round_up(seconds) == stated


def test_round_up_rejects_nonsense():
    with pytest.raises(ValueError, match="seconds"):
        tn.round_up(-1.0)


def make_notebook(path: Path, seconds: int, tail: str = "") -> Path:
    header = f"# A lesson\n\n**Estimated run time:** about {seconds} s on a laptop CPU{tail}."
    notebook = nbformat.v4.new_notebook(
        cells=[nbformat.v4.new_markdown_cell(header), nbformat.v4.new_code_cell("1 + 1")]
    )
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


@pytest.fixture
def scratch(tmp_path):
    """A copy of the course's README and notebooks (what the manifest generates)."""
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    return tmp_path


def test_set_manifest_values_replaces_or_adds_a_key_of_one_lesson_only():
    text = (ROOT / "notebooks" / "course.toml").read_text(encoding="utf-8")
    stated = next(x.run_s for x in LESSONS if x.stem == "03_sinusoidal_encoding")
    changed = tn.set_manifest_values(text, "03_sinusoidal_encoding", {"run_s": 99})
    assert changed.count("run_s = 99") == 1
    assert changed.replace("run_s = 99", f"run_s = {stated}") == text
    table = '[[lessons]]\nstem = "00_a"\nrun_s = 1\n\n[[lessons]]\nstem = "01_b"\n'
    added = tn.set_manifest_values(table, "01_b", {"run_s": 7, "study_min": [5, 10, 0]})
    assert added == table + "run_s = 7\nstudy_min = [5, 10, 0]\n"
    with pytest.raises(ValueError, match="stem '02_c'"):
        tn.set_manifest_values(table, "02_c", {"run_s": 1})


def test_write_sets_the_manifest_then_the_readme_and_header_from_it(scratch):
    lesson = LESSONS[3]
    path, solution = lesson.path(scratch), lesson.solutions_path(scratch)
    manifest = scratch / "notebooks" / "course.toml"
    study = f"study_min = {list(lesson.study_min)}\nexercises = {lesson.exercises}\n"
    # a new lesson has no study time yet: --write adds it
    assert study in manifest.read_text("utf-8")
    manifest.write_text(manifest.read_text("utf-8").replace(study, "", 1), encoding="utf-8")
    tn.write_times({path: 21.3, solution: 3.2}, scratch)
    (written,) = [x for x in lessons(scratch) if x.stem == lesson.stem]
    assert (written.run_s, written.solutions_run_s) == (25, 4)
    assert (written.study_min, written.exercises) == (lesson.study_min, lesson.exercises)
    readme = (scratch / "README.md").read_text(encoding="utf-8")
    assert f"| {course.study_cell(lesson)} | about 25 s |" in readme
    assert tn.header_seconds(nbformat.read(path, as_version=4)) == 25
    assert tn.header_seconds(nbformat.read(solution, as_version=4)) == 4
    assert tn.stated_seconds(path, scratch) == 25
    assert course.run(scratch) == []
    assert tn.check_times({path: 24.0}, 0.5, scratch) == []
    (problem,) = tn.check_times({path: 50.0}, 0.5, scratch)
    assert "measured 50.0 s, the course says 25 s" in problem


def test_notebook_outside_the_repository(tmp_path, monkeypatch, capsys):
    # the real script on a notebook that is not in the repository: no crash, manifest and README
    # untouched, the header written from the measurement
    outside = make_notebook(tmp_path / "elsewhere" / "99_outside.ipynb", 3)
    before = [(ROOT / f).read_bytes() for f in ("README.md", "notebooks/course.toml")]
    monkeypatch.setattr(tn, "execute", lambda path, timeout, write: 12.5)
    assert tn.main([str(outside), "--no-tests", "--write"]) == 0
    assert tn.header_seconds(nbformat.read(outside, as_version=4)) == 15
    assert [(ROOT / f).read_bytes() for f in ("README.md", "notebooks/course.toml")] == before
    assert str(outside) in capsys.readouterr().out
    assert tn.main([str(outside), "--no-tests", "--check"]) == 0
    monkeypatch.setattr(tn, "execute", lambda path, timeout, write: 40.0)
    assert tn.main([str(outside), "--no-tests", "--check"]) == 1
    assert "measured 40.0 s, the course says 15 s" in capsys.readouterr().out


# --- study times (issues 27, 41): prose 100 words/min, code 6.5 lines/min, 10 min an exercise --


def with_study(times: tn.StudyTime) -> course.Lesson:
    """A lesson of the manifest with these study times."""
    return dataclasses.replace(
        LESSONS[1], study_min=tuple(times.stated()), exercises=times.exercises
    )


def lesson_with_parts() -> nbformat.NotebookNode:
    """275 core words + 16 core code lines, 2 exercises, 156 optional words + 12 optional lines:
    an optional section inside the lesson (a level-3 heading closes it) and one at its end."""
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    words = " ".join(["word"] * 107)  # + 3 tokens of "# A lesson", 10 of the run time: 120
    cells = [
        md(f"# A lesson\n\n{words}\n\n**Estimated run time:** about 5 s on a laptop CPU."),
        code("\n".join(f"x{i} = {i}" for i in range(8)) + "\n\n"),  # 8 lines; blank ones skipped
        md("## Section\n\n### A check\n\n" + " ".join(["w"] * 115)),  # 120 tokens with headings
        code("\n".join(f"y{i} = {i}" for i in range(8))),
        md("### Optional: a slider\n\n" + " ".join(["o"] * 20)),  # 24 optional tokens
        code("\n".join(f"s{i} = {i}" for i in range(4))),  # 4 optional lines
        md("### Check: back in the core"),  # 6 tokens: the same level closes the optional part
        md("## Summary\n\n- " + " ".join(["s"] * 9)),  # 12 tokens of core
        md("## Exercises\n\n**1. Compute.** " + " ".join(["e"] * 500)),
        code("# your answer here\n" * 40),
        md("**2. Implement.** do it\n\n- **Not an exercise:** a bullet\n\nA **3. in a line**"),
        md("## Going deeper (optional): a digression\n\n" + " ".join(["g"] * 114)),  # 120
        md("### More of it\n\na lower heading stays in the optional part"),  # 12 tokens
        code("\n".join(f"z{i} = {i}" for i in range(8))),
        md("## Back in the core\n\na heading of the same level ends it"),  # 13 tokens
        md("**Next:** [the next lesson](02_next.ipynb)"),  # 4 tokens of core
    ]
    return nbformat.v4.new_notebook(cells=cells)


def test_study_time_counts_each_part_by_the_rule():
    notebook = lesson_with_parts()
    assert tn.cell_parts(notebook) == [
        *["core"] * 4,
        "optional",
        "optional",
        "core",
        "core",
        "exercises",
        "exercises",
        "exercises",
        *["optional"] * 3,
        "core",
        "core",
    ]
    times = tn.study_time(notebook)
    assert (times.words, times.code_lines, times.exercises) == (268, 16, 2)  # '##' is no word
    assert (times.optional_words, times.optional_code_lines) == (153, 12)
    assert times.core_minutes == pytest.approx(268 / 100 + 16 / 6.5)  # 5.14 min
    assert times.exercise_minutes == 20
    assert times.optional_minutes == pytest.approx(153 / 100 + 12 / 6.5)  # 3.38 min
    assert times.stated() == [10, 30, 5]
    lesson = with_study(times)
    assert course.study_line(lesson) == (
        "**Study time:** about 10 min to read and run, about 30 min with the 2 exercises; "
        "the optional part (Going deeper) adds about 5 min."
    )
    assert course.study_cell(lesson) == "10 / 30 min (+5 optional)"


def test_study_time_of_a_lesson_without_exercises_or_optional_part():
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(" ".join(["w"] * 1200)),  # 12 min
            nbformat.v4.new_code_cell("\n".join(["x = 1"] * 78)),  # 12 min
        ]
    )
    times = tn.study_time(notebook)
    assert times.core_minutes == pytest.approx(12 + 12)
    assert times.stated() == [25, 25, 0]
    lesson = with_study(times)
    assert course.study_line(lesson) == "**Study time:** about 25 min to read and run."
    assert course.study_cell(lesson) == "25 / 25 min"


def test_table_pipes_rules_and_bullets_are_not_words():
    table = "| scheme | cost |\n|---|---|\n| rotary | none |\n\n- a bullet — and 2-D"
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(table)])
    # scheme cost rotary none a bullet and 2-D: 8 words (no |, |---|---|, - or —)
    assert tn.study_time(notebook).words == 8


@pytest.mark.parametrize(
    ("minutes", "stated"), [(0, 5), (4.1, 5), (5.0, 5), (5.01, 10), (43.3, 45)]
)
def test_round_minutes(minutes, stated):
    assert tn.round_minutes(minutes) == stated


def test_round_minutes_rejects_nonsense():
    with pytest.raises(ValueError, match="minutes"):
        tn.round_minutes(float("nan"))


def test_write_study_times_writes_the_manifest_then_readme_and_header(scratch):
    lesson = LESSONS[2]
    path = lesson.path(scratch)
    notebook = nbformat.read(path, as_version=4)
    total = tn.study_time(notebook).stated()[1]  # by the rule (the manifest may be stale)
    notebook.cells.insert(1, nbformat.v4.new_markdown_cell(" ".join(["word"] * 1000)))  # +10 min
    nbformat.write(notebook, path)
    assert [x for x in lessons(scratch) if x.stem == lesson.stem][0].study_min == lesson.study_min
    written = tn.write_study_times([path], scratch)
    assert written[path][1] == total + 10
    (new,) = [x for x in lessons(scratch) if x.stem == lesson.stem]
    assert new.study_min[1] == total + 10 and new.run_s == lesson.run_s
    readme = (scratch / "README.md").read_text(encoding="utf-8")
    assert f"| {course.study_cell(new)} | about {lesson.run_s} s |" in readme
    header = nbformat.read(path, as_version=4).cells[0].source
    assert course.study_line(new) in header
    # writing again changes nothing: the study line is not counted in the study time
    before = (path.read_bytes(), readme)
    tn.write_study_times([path], scratch)
    assert (path.read_bytes(), (scratch / "README.md").read_text("utf-8")) == before
    with pytest.raises(ValueError, match="not a lesson"):
        tn.write_study_times([lesson.solutions_path(scratch)], scratch)


def test_the_manifests_study_times_are_the_rules():
    assert tn.study_problems() == []


def test_every_lesson_core_fits_one_sitting():
    """Issue 41: a first-time reader gets through every lesson's core in one 45-minute sitting
    (the rest is in its marked optional parts), by the calibrated rule."""
    over = {}
    for lesson in LESSONS:
        notebook = nbformat.read(lesson.path(), as_version=4)
        minutes = tn.study_time(notebook).core_minutes
        if minutes > tn.CORE_BUDGET_MINUTES:
            over[lesson.stem] = round(minutes, 1)
    assert not over, f"core over {tn.CORE_BUDGET_MINUTES} min by the rule: {over}"


def test_header_lines_may_stand_in_the_notes_cells_that_continue_the_title_cell():
    """A title cell split for the deck (statement on the slide, the rest a ``notes`` cell) reads
    as one cell: its run-time and study-time lines are found and rewritten where they stand,
    and nothing is appended to the first cell."""
    md = nbformat.v4.new_markdown_cell
    title = md("# 99 · A lesson\n\nThe claim.")
    rest = md(
        "The rest.\n\n**Study time:** about 5 min to read and run.\n\n"
        "**Estimated run time:** about 7 s on a laptop CPU."
    )
    rest.metadata["slideshow"] = {"slide_type": "notes"}
    after = md("**Estimated run time:** about 99 s on a laptop CPU.")  # not the header
    notebook = nbformat.v4.new_notebook(cells=[title, rest, after])
    assert course.header_cells(notebook) == [title, rest]
    assert tn.header_seconds(notebook) == 7
    tn.set_header_seconds(notebook, 12)
    course._set_run_line(notebook, 12)
    lesson = dataclasses.replace(LESSONS[1], study_min=(40, 60, 0), exercises=2)
    course._set_study_line(notebook, lesson)
    assert title.source == "# 99 · A lesson\n\nThe claim."
    assert rest.source == (
        "The rest.\n\n**Study time:** about 40 min to read and run, about 60 min with the 2 "
        "exercises.\n\n**Estimated run time:** about 12 s on a laptop CPU."
    )
    assert after.source.endswith("about 99 s on a laptop CPU.")
    rest.metadata["slideshow"] = {"slide_type": "-"}  # not a continuation: the first cell only
    assert course.header_cells(notebook) == [title] and tn.header_seconds(notebook) is None
