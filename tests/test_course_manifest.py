"""The course manifest (notebooks/course.toml): it lists exactly the notebooks on disk, every part
generated from it is up to date (``python scripts/course.py --check``), the check bites, and a
new lesson needs nothing but its notebook and its entry for every table, link and list to follow."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import _course  # noqa: E402
import course  # noqa: E402

LESSONS = _course.lessons()


def test_the_manifest_lists_exactly_the_notebooks_on_disk():
    assert [x.file for x in LESSONS] == [p.name for p in _course.lesson_notebooks()]
    assert [x.file for x in LESSONS if x.solutions] == [
        p.name for p in _course.solution_notebooks()
    ]
    assert course.disk_problems(LESSONS) == []


def test_every_generated_part_is_up_to_date():
    """``python scripts/course.py --check``: the README map and tables, the guides' lists, the
    lecture plan's table,
    lesson 00's map, the Next links, the header lines. Fix with ``--write``."""
    assert course.run() == []


def test_check_and_list_from_the_command_line(capsys):
    assert course.main(["--check"]) == 0
    assert "every generated part is up to date" in capsys.readouterr().out
    assert course.main(["--list", "portable"]) == 0
    listed = capsys.readouterr().out.split()
    assert listed == [p.relative_to(ROOT).as_posix() for p in _course.portable_notebooks()]
    assert "notebooks/solutions/13_bugs_clinic.ipynb" in listed  # a solutions_portable flag
    assert len(listed) == sum(x.portable for x in LESSONS) + sum(
        x.solutions_portable for x in LESSONS
    )


def test_ci_reads_the_portable_flags_instead_of_spelling_lessons():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "portable=$(python scripts/course.py --list portable)" in ci
    (line,) = [line for line in ci.splitlines() if line.startswith("portable=")]
    assert ".ipynb" not in line


@pytest.mark.parametrize(
    ("numbers", "text"),
    [
        (["03"], "03"),
        (["03", "04"], "03 and 04"),
        (["00", "01", "02", "05", "07", "08"], "00-02, 05, 07 and 08"),
        (["06", "09", "10", "11"], "06 and 09-11"),
        ([], ""),
    ],
)
def test_number_range(numbers, text):
    assert course.number_range(numbers) == text


def test_a_manifest_entry_with_a_wrong_key_is_refused(tmp_path):
    manifest = tmp_path / "notebooks" / "course.toml"
    manifest.parent.mkdir()
    text = (ROOT / "notebooks" / "course.toml").read_text(encoding="utf-8")
    manifest.write_text(text.replace("trains = false", "train = false", 1), encoding="utf-8")
    with pytest.raises(ValueError, match=r"unknown keys \['train'\], missing keys \['trains'\]"):
        _course.lessons(tmp_path)
    manifest.write_text(text.replace("graded = false", 'graded = "no"', 1), encoding="utf-8")
    with pytest.raises(ValueError, match="graded = 'no', expected a bool"):
        _course.lessons(tmp_path)
    manifest.write_text(text.replace('stem = "01_', 'stem = "02_', 1), encoding="utf-8")
    with pytest.raises(ValueError, match="stems numbered"):
        _course.lessons(tmp_path)


@pytest.fixture
def scratch(tmp_path):
    """A copy of what the manifest generates: the README and the notebooks folder."""
    shutil.copy(ROOT / "README.md", tmp_path / "README.md")
    shutil.copytree(ROOT / "notebooks", tmp_path / "notebooks")
    return tmp_path


def _edit_manifest(root: Path, old: str, new: str, stem: str = "") -> None:
    """Replace the first ``old`` of the manifest (of the entry of ``stem``, when given)."""
    path = root / "notebooks" / "course.toml"
    text = path.read_text(encoding="utf-8")
    start = text.index(f'stem = "{stem}"') if stem else 0
    assert old in text[start:]
    path.write_text(text[:start] + text[start:].replace(old, new, 1), encoding="utf-8")


def test_the_check_names_every_stale_part_and_write_fixes_them(scratch):
    lesson = LESSONS[5]
    _edit_manifest(scratch, f'learn = "{lesson.learn}"', 'learn = "something else"')
    _edit_manifest(
        scratch, f"run_s = {lesson.run_s}\n", f"run_s = {lesson.run_s + 1}\n", lesson.stem
    )
    _edit_manifest(scratch, f'question = "{LESSONS[1].question}"', 'question = "why, again?"')
    path = LESSONS[6].path(scratch)  # lesson 06's Next link sent to the wrong lesson
    notebook = nbformat.read(path, as_version=4)
    notebook.cells[-1].source = notebook.cells[-1].source.replace(
        "](07_masks.ipynb)", "](08_x.ipynb)"
    )
    nbformat.write(notebook, path)
    assert course.run(scratch) == [
        f"{file} is stale (python scripts/course.py --write)"
        for file in (
            "README.md: course map",
            "notebooks/lecture_plan.md: overview table",  # its run-time column
            "notebooks/lecture_plan.md: run times of the lesson lines",
            "notebooks/00_start_here.ipynb: course map",  # 01's question
            f"notebooks/{lesson.file}: run-time line",
            f"notebooks/{LESSONS[6].file}: Next link",
        )
    ]
    assert course.write(scratch) == []
    assert course.run(scratch) == []
    readme = (scratch / "README.md").read_text(encoding="utf-8")
    assert (
        f"| something else | {course.study_cell(lesson)} | about {lesson.run_s + 1} s |" in readme
    )
    closing = nbformat.read(path, as_version=4).cells[-1].source
    assert (
        "**Next:** [07 · Masks](07_masks.ipynb): how do we hide padding and the future?" in closing
    )


def test_markers_missing_and_a_wrong_title_are_reported(scratch):
    readme = scratch / "README.md"
    readme.write_text(readme.read_text("utf-8").replace("<!-- /course-map -->", ""), "utf-8")
    _edit_manifest(scratch, 'title = "Masks"', 'title = "Masking"')
    problems = course.write(scratch)
    assert (
        "README.md: course map: the markers <!-- course-map --> ... <!-- /course-map --> are missing"
        in problems
    )
    assert any(
        p.startswith("notebooks/07_masks.ipynb: title: the first heading is") for p in problems
    )


def test_a_new_lesson_needs_only_its_notebook_and_its_entry(scratch):
    """The next lesson as the maintainers' guide adds it: a notebook (here the bare minimum),
    one manifest entry; ``--write`` then brings every table, link and list along."""
    lessons = _course.lessons(scratch)
    last, n = lessons[-1], f"{len(lessons):02d}"  # the course's last lesson, the new number
    prev, stem = last.stem[:2], f"{len(lessons):02d}_a_new_lesson"
    session = max(s for lesson in lessons for s in lesson.sessions)  # the plan's last session
    lecture = min(last.sessions)  # the last lesson's lecture (its lab may hold earlier lessons)
    heads = [
        line
        for line in (scratch / "notebooks" / "lecture_plan.md").open(encoding="utf-8")
        if line.startswith("## Session")
    ]
    lectures = sum("(lecture)" in line for line in heads)
    labs = sum("(lab)" in line for line in heads)
    new = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_markdown_cell(f"# {n} · A new lesson\n\nWhat it is about."),
            nbformat.v4.new_code_cell("1 + 1"),
            nbformat.v4.new_markdown_cell("## Summary\n\n- one point"),
        ]
    )
    nbformat.write(new, scratch / "notebooks" / f"{stem}.ipynb")
    entry = (
        f'\n[[lessons]]\nstem = "{stem}"\ntitle = "A new lesson"\n'
        f'question = "what comes next?"\nlearn = "the newest thing"\nsessions = [{lecture}]\n'
        "trains = true\nportable = true\ngraded = false\nsolutions = false\nrun_s = 12\n"
        "study_min = [30, 30, 0]\nexercises = 0\n"
    )
    manifest = scratch / "notebooks" / "course.toml"
    manifest.write_text(manifest.read_text("utf-8") + entry, encoding="utf-8")
    stale = course.run(scratch)
    # the last session lists only the last lesson in its sections: the plan must say what the
    # new one adds to it, and nothing is generated from a manifest the plan contradicts
    assert stale == [
        f"notebooks/lecture_plan.md: session {lecture} lists lessons ['{prev}'], "
        f"notebooks/course.toml gives it ['{prev}', '{n}']"
    ]
    # the plan's author gives it a session of its own instead
    _edit_manifest(
        scratch,
        f'newest thing"\nsessions = [{lecture}]',
        f'newest thing"\nsessions = [{session + 1}]',
    )
    plan = scratch / "notebooks" / "lecture_plan.md"
    plan.write_text(
        plan.read_text("utf-8")
        + f"\n## Session {session + 1} (lecture): Something new\n\n**Lessons and sections**\n\n"
        f"- [{n} · A new lesson]({stem}.ipynb) (run time 1 s): all sections\n",
        encoding="utf-8",
    )
    assert course.write(scratch) == []
    assert course.run(scratch) == []
    readme = (scratch / "README.md").read_text(encoding="utf-8")
    assert (
        f"| {n} | [a_new_lesson](notebooks/{stem}.ipynb) | the newest thing | 30 / 30 min | about 12 s |"
        in readme
    )
    maintainers = (scratch / course.MAINTAINERS).read_text(encoding="utf-8")
    assert "every lesson fits it" in maintainers  # the new lesson (30 min) fits a sitting too
    lecturers = (scratch / course.LECTURERS).read_text(encoding="utf-8")
    assert (
        f"{session + 1} sessions of 90 minutes ({lectures + 1} lectures, {labs} labs)" in lecturers
    )
    plan_text = plan.read_text("utf-8")
    row = f"| {session + 1} | Lecture | Something new | {n} | {n}: 12 s | 0 |\n<!-- /sessions -->"
    assert row in plan_text
    assert f"({stem}.ipynb) (run time 12 s): all sections" in plan_text
    assert f"{lectures + 1} lectures and {labs} labs" in plan_text
    before = nbformat.read(scratch / "notebooks" / f"{last.stem}.ipynb", as_version=4)
    assert before.cells[-1].source.endswith(
        f"**Next:** [{n} · A new lesson]({stem}.ipynb): what comes next?"
    )
    added = nbformat.read(scratch / "notebooks" / f"{stem}.ipynb", as_version=4)
    assert added.cells[0].source == (
        f"# {n} · A new lesson\n\nWhat it is about.\n\n**Study time:** about 30 min to read and "
        "run.\n\n**Estimated run time:** about 12 s on a laptop CPU."
    )
    assert added.cells[-1].source.endswith(
        "**Next:** go back to [00 · Start here](00_start_here.ipynb) for the map of the course."
    )
    start = nbformat.read(scratch / "notebooks" / "00_start_here.ipynb", as_version=4)
    second_half = [c for c in start.cells if c.get("id") == course.MAP_CELLS[-1]][0].source
    assert f"| {n} | a_new_lesson | what comes next? |" in second_half
    assert second_half.endswith("none needs a GPU.")  # the text after the table is kept
    notes = (scratch / "notebooks" / "lectures" / "00_notes.md").read_text(encoding="utf-8")
    assert f"### {course.MAP_CELLS[0]} · Course map, lessons 00-06" in notes  # 7 + 7 + 6 rows
    assert f"### {course.MAP_CELLS[1]} · Course map, lessons 07-13" in notes
    assert f"### {course.MAP_CELLS[2]} · Course map, lessons 14-{n}" in notes
    listed = [p.name for p in _course.portable_notebooks(scratch)]
    assert f"{stem}.ipynb" in listed
