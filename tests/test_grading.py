"""End to end: the course's exercises as nbgrader assignments, released and autograded.

Builds every lesson's assignment into a temporary nbgrader course folder with
``scripts/build_assignments.py``, releases them all (``nbgrader generate_assignment``) and checks
that no solution and no hidden test reaches a student. Then, for a few lessons (all of them with
``GRADING_LESSONS=all``, or the numbers listed there, e.g. ``GRADING_LESSONS=03,07``), it
autogrades four students in one ``nbgrader autograde`` run, without network where
``unshare -rn`` works, and checks the grades and the feedback:

- ``solutions``: the worked solutions get every autograded point; written answers await a grader;
- ``untouched``: the student version as released gets 0 and grading does not crash;
- ``mistakes``: one classic mistake per exercise (a mistake its checker names) loses exactly
  that exercise's points, and the feedback shows the checker's hint;
- ``hostile`` (one lesson with two implementation exercises): a cell that prints megabytes and
  calls ``sys.exit`` still gets its points, a function and a cell that hang get 0; the notebook
  is graded and its stored output stays small;
- ``delegates``: each exercise answered by calling the course's own implementation (which passes
  the public checker) gets 0, and the feedback says why.

No graded case reaches a student: they live in ``graded_cases/`` of the course folder, never in
a notebook, and no value of theirs appears in any released or feedback file; an untouched
submission logs no checksum warning.

Needs the lecturers' extra (``pip install -e ".[grading]"``): skips without nbgrader.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip(
    "nbgrader",
    reason="nbgrader is not installed: the grading test needs the lecturers' extra, "
    "pip install -e '.[grading]' (notebooks/guide_lecturers.md, 'Grading')",
)
import nbformat  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import build_assignments  # noqa: E402

DEFAULT_GRADED = tuple(x.number for x in __import__("_course").lessons() if x.graded)  # manifest
HOSTILE_TIMEOUT_S = 30  # the cell limit for the grading run (a cell of `hostile` hangs)
STUDENTS = ("solutions", "untouched", "mistakes", "hostile", "delegates")


def _nbgrader(course: Path, *args: str, offline: bool = False) -> subprocess.CompletedProcess:
    command = [sys.executable, "-m", "nbgrader", *args]
    if offline:
        command = ["unshare", "-rn", "sh", "-c", 'ip link set lo up && exec "$@"', "sh", *command]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the kernels import this checkout's helpers
    result = subprocess.run(command, cwd=course, env=env, capture_output=True, text=True)
    assert result.returncode == 0, f"nbgrader {args[0]} failed:\n{result.stderr[-3000:]}"
    return result


def _can_go_offline() -> bool:
    if shutil.which("unshare") is None or shutil.which("ip") is None:
        return False
    probe = ["unshare", "-rn", "sh", "-c", "ip link set lo up"]
    return subprocess.run(probe, capture_output=True).returncode == 0


def _graded_lessons(built: list[build_assignments.Assignment]) -> list[str]:
    wanted = os.environ.get("GRADING_LESSONS", ",".join(DEFAULT_GRADED))
    names = [a.name for a in built]
    if wanted == "all":
        return names
    chosen = [n for n in names if n[:2] in wanted.split(",")]
    return chosen or names[:2]  # lessons renumbered: grade the first two built


def _hostile_lesson(built: list[build_assignments.Assignment], graded: list[str]) -> str:
    """A graded lesson with two implementation exercises (or else any built one)."""
    two = [a.name for a in built if sum(e.kind == "implement" for e in a.exercises) >= 2]
    assert two, "no assignment has two implementation exercises"
    return next((name for name in two if name in graded), two[0])


def _solution_cells(notebook: nbformat.NotebookNode) -> dict[str, nbformat.NotebookNode]:
    return {
        cell.metadata["nbgrader"]["grade_id"]: cell
        for cell in notebook.cells
        if cell.metadata.get("nbgrader", {}).get("solution") and cell.cell_type == "code"
    }


def _mistakes_submission(release: Path, assignment: build_assignments.Assignment) -> Path:
    """The student version with each exercise answered by one mistake its checker names."""
    notebook = nbformat.read(release, as_version=4)
    cells = _solution_cells(notebook)
    for exercise in assignment.exercises:
        if exercise.kind == "implement" and exercise.mistakes:
            module, function = exercise.mistakes[0][0].split(":")
            cells[exercise.name].source = f"from {module} import {function} as {exercise.name}"
        elif exercise.kind == "implement":  # no named mistake fits the answer's form
            signature = exercise.solution.splitlines()[0]
            cells[exercise.name].source = f"{signature}\n    return None  # forgot to return\n"
    return _save(notebook, "mistakes", assignment.name)


def _hostile_submission(release: Path, assignment: build_assignments.Assignment) -> Path:
    """First exercise right but noisy (megabytes, then sys.exit); the second hangs twice."""
    notebook = nbformat.read(release, as_version=4)
    cells = _solution_cells(notebook)
    first, second = [e for e in assignment.exercises if e.kind == "implement"][:2]
    cells[first.name].source = (
        first.solution + "\n\n\nimport sys\n\nfor _ in range(40_000):\n    print('x' * 60)\n"
        "sys.exit(3)\n"
    )
    cells[second.name].source = (
        f"import time\n\n\ndef {second.name}(*args):\n    while True:\n        time.sleep(1)\n\n\n"
        "while True:  # hangs at the top level too: stopped by the cell time limit\n"
        "    time.sleep(1)\n"
    )
    return _save(notebook, "hostile", assignment.name)


def _delegates_submission(release: Path, assignment: build_assignments.Assignment) -> Path:
    """The student version with each exercise answered by the course's own implementation."""
    notebook = nbformat.read(release, as_version=4)
    cells = _solution_cells(notebook)
    for exercise in assignment.exercises:
        if exercise.kind == "implement" and exercise.delegates:
            module, function = exercise.delegates[0].split(":")
            cells[exercise.name].source = f"from {module} import {function} as {exercise.name}"
    return _save(notebook, "delegates", assignment.name)


def _save(notebook: nbformat.NotebookNode, student: str, name: str) -> Path:
    path = COURSE / "submitted" / student / name / f"{name}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    return path


COURSE = Path()  # set by the fixture: the temporary course folder


@pytest.fixture(scope="module")
def graded(tmp_path_factory: pytest.TempPathFactory) -> dict:
    """Build, release, submit and autograde once; the tests read what came out."""
    global COURSE
    COURSE = tmp_path_factory.mktemp("course")
    messages: list[str] = []
    built = build_assignments.build(COURSE, seed=20261125, log=messages.append)
    assert built, "no assignment was built"
    _nbgrader(COURSE, "generate_assignment", "*", "--force")
    lessons = _graded_lessons(built)
    hostile = _hostile_lesson(built, lessons)
    by_name = {a.name: a for a in built}
    for name in lessons:
        release = COURSE / "release" / name / f"{name}.ipynb"
        source = COURSE / "source" / name / f"{name}.ipynb"
        _save(nbformat.read(source, as_version=4), "solutions", name)
        _save(nbformat.read(release, as_version=4), "untouched", name)
        _mistakes_submission(release, by_name[name])
        _delegates_submission(release, by_name[name])
    _hostile_submission(COURSE / "release" / hostile / f"{hostile}.ipynb", by_name[hostile])
    offline = _can_go_offline()
    timeout = f"--Execute.timeout={HOSTILE_TIMEOUT_S}"
    untouched = _nbgrader(COURSE, "autograde", "*", "--student=untouched", timeout, offline=offline)
    _nbgrader(COURSE, "autograde", "*", timeout, offline=offline)
    _nbgrader(COURSE, "generate_feedback", "*")
    _nbgrader(COURSE, "export")
    return {
        "built": built,
        "lessons": lessons,
        "hostile": hostile,
        "messages": messages,
        "untouched_log": untouched.stdout + untouched.stderr,
    }


def _grades(assignment: str, student: str) -> dict[str, tuple[float | None, bool]]:
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{COURSE / 'gradebook.db'}") as gradebook:
        notebook = gradebook.find_submission_notebook(assignment, assignment, student)
        return {g.name: (g.auto_score, g.needs_manual_grade) for g in notebook.grades}


def test_every_lesson_is_built_or_skipped_with_a_reason(graded):
    built = {a.name for a in graded["built"]}
    skipped = [m for m in graded["messages"] if m.startswith("skipped ")]
    for lesson in build_assignments.lesson_notebooks():
        if lesson.stem not in built:
            assert any(m.startswith(f"skipped {lesson.stem}: ") for m in skipped), lesson.stem
    assert len(built) >= 2 and graded["lessons"]


# Exercises the builder cannot redraw cases for: M-RoPE's head width must be twice the sum of
# its sections (moving one size alone breaks the case), and M-RoPE's position ids take a list
# of segments, which it does not redraw. Strict: listed ones still have none.
# Exercises whose checker's cases cannot be stored as graded cases (the note says why): lesson
# 10's decoding cases hold a model object, which is not a function of helpers to name.
NO_HIDDEN_CASES = {
    "10_mini_transformer, my_greedy_decode",
}


def test_every_exercise_has_hidden_cases_and_a_worked_answer(graded):
    for assignment in graded["built"]:
        for exercise in assignment.exercises:
            where = f"{assignment.name}, {exercise.name}"
            assert exercise.solution.strip(), f"{where}: no worked answer"
            if exercise.kind == "implement" and where in NO_HIDDEN_CASES:
                assert exercise.hidden_cases == 0 and exercise.note, where
            elif exercise.kind == "implement":
                assert exercise.hidden_cases >= 1, f"{where}: {exercise.note}"


def test_student_versions_hold_no_solution_and_no_graded_case(graded):
    for assignment in graded["built"]:
        release = COURSE / "release" / assignment.name / f"{assignment.name}.ipynb"
        text = release.read_text()
        source = (COURSE / "source" / assignment.name / f"{assignment.name}.ipynb").read_text()
        for marker in ("BEGIN SOLUTION", "END SOLUTION"):
            assert marker in source  # the markers the release must have removed
            assert marker not in text, f"{assignment.name}: {marker!r} in the student version"
        for marker in ("HIDDEN TESTS", "pickle", "b64decode"):  # graded cases stay out of notebooks
            assert marker not in source, f"{assignment.name}: {marker!r} in the source version"
        setup = nbformat.read(release, as_version=4).cells[1].source
        for exercise in assignment.exercises:  # the set-up does not hand out the answer
            for reference in exercise.references:
                name = reference.split(":")[1]
                assert f"import {name}" not in setup and f" {name}," not in setup, (
                    f"{assignment.name}: the set-up cell imports {name}, {exercise.name}'s answer"
                )
        notebook = nbformat.read(release, as_version=4)
        for exercise in assignment.exercises:
            if exercise.kind == "implement":  # the signature, then only the stub
                stub = _solution_cells(notebook)[exercise.name].source.splitlines()
                signature = exercise.solution.splitlines()[: len(stub) - 2]
                assert stub[:-2] == signature, f"{assignment.name}: {exercise.name} {stub}"
                assert [line.strip() for line in stub[-2:]] == [
                    "# YOUR CODE HERE",
                    "raise NotImplementedError()",
                ], f"{assignment.name}: {exercise.name} {stub}"
            else:
                assert exercise.solution[-200:] not in text, f"{assignment.name}: answer released"
        assert release.stat().st_size < 100_000


def test_worked_solutions_get_every_autograded_point(graded):
    for name in graded["lessons"]:
        grades = _grades(name, "solutions")
        assignment = next(a for a in graded["built"] if a.name == name)
        for exercise in assignment.exercises:
            score, manual = grades[exercise.grade_id]
            if exercise.kind == "implement":
                assert score == exercise.points and not manual, f"{name}, {exercise.name}"
            else:
                assert manual, f"{name}, {exercise.name}: written answers await a grader"


def test_the_untouched_student_version_gets_zero(graded):
    for name in graded["lessons"]:
        grades = _grades(name, "untouched")
        assert grades and all(score == 0 for score, _ in grades.values()), (name, grades)


def test_each_classic_mistake_loses_exactly_its_exercise_and_the_feedback_names_it(graded):
    for name in graded["lessons"]:
        grades = _grades(name, "mistakes")
        feedback = (COURSE / "feedback" / "mistakes" / name / f"{name}.html").read_text()
        assignment = next(a for a in graded["built"] if a.name == name)
        for exercise in assignment.exercises:
            score, _ = grades[exercise.grade_id]
            if exercise.kind == "implement":
                assert score == 0, f"{name}, {exercise.name}: the mistake kept its points"
                if exercise.mistakes:
                    hint = exercise.mistakes[0][1]
                else:
                    hint = f"{exercise.checker}: FAILED on"  # the checker's own verdict
                shown = html.unescape(feedback)
                assert hint in shown, f"{name}, {exercise.name}: {hint!r} not in the feedback"
            else:
                assert score == 0  # left as released


def test_a_hostile_submission_is_graded_not_fatal(graded):
    name = graded["hostile"]
    grades = _grades(name, "hostile")
    assignment = next(a for a in graded["built"] if a.name == name)
    first, second = [e for e in assignment.exercises if e.kind == "implement"][:2]
    assert grades[first.grade_id][0] == first.points  # defined before it printed and exited
    assert grades[second.grade_id][0] == 0  # hangs when called: the checker's time limit
    autograded = COURSE / "autograded" / "hostile" / name / f"{name}.ipynb"
    assert autograded.stat().st_size < 1_000_000  # megabytes printed, little stored
    outputs = json.dumps(nbformat.read(autograded, as_version=4).cells)
    assert "SystemExit" in outputs
    assert "CellTimeoutError" in outputs or "KeyboardInterrupt" in outputs  # the cell limit
    assert "took longer than" in outputs  # the checker's verdict on the hanging function


def _floats(value: object, found: set[str]) -> None:
    """Add every float of a stored array below ``value`` in its printed forms of 5+ digits."""
    if isinstance(value, list):
        for item in value:
            _floats(item, found)
    elif isinstance(value, dict) and (
        value.get("tensor", "").startswith("float") or value.get("ndarray", "")[1:2] == "f"
    ):
        for x in (x for x in value["data"] if isinstance(x, float) and abs(x) > 1e-3):
            shown = {repr(x), f"{x:.6g}", f"{x:.6f}"}
            found.update(t for t in shown if len(re.sub(r"\D", "", t).lstrip("0")) >= 5)
    elif isinstance(value, dict):
        for item in value.values():
            _floats(item, found)


def _case_arguments(value: object, found: set[str]) -> None:
    if isinstance(value, dict) and "case" in value:
        _floats(value["case"][0], found)  # the arguments
    elif isinstance(value, dict | list):
        for item in value.values() if isinstance(value, dict) else value:
            _case_arguments(item, found)


def _graded_values(path: Path) -> set[str]:
    """Every float a graded case was drawn with (its arguments, redrawn at random when the
    assignments are built), as it could be printed: in full and to 6 significant digits, in the
    forms with at least 5 digits (no chance match). Expected answers of cases whose arguments
    are sizes alone (a sinusoidal table: sin(1) = 0.841471) are the public cases' too: not
    secret, not searched."""
    found: set[str] = set()
    _case_arguments(json.loads(path.read_text()), found)
    return found


def test_no_graded_value_reaches_any_file_a_student_receives(graded):
    student_files = [
        p
        for folder in ("release", "feedback")
        for p in (COURSE / folder).rglob("*")
        if p.is_file() and p.suffix in (".ipynb", ".html", ".py", ".json", ".txt")
    ]
    assert any(p.suffix == ".html" for p in student_files), "no feedback was generated"
    texts = {p: html.unescape(p.read_text(errors="replace")) for p in student_files}
    checked = 0
    for cases in (COURSE / "graded_cases").glob("*.json"):
        values = _graded_values(cases)
        checked += len(values)
        for path, text in texts.items():
            leaked = [v for v in values if v in text]
            assert not leaked, f"{path.relative_to(COURSE)} shows graded values {leaked[:3]}"
    assert checked > 500  # the search had values to look for


def test_an_answer_that_calls_the_course_s_own_implementation_gets_zero(graded):
    delegated = 0
    for name in graded["lessons"]:
        grades = _grades(name, "delegates")
        feedback = html.unescape(
            (COURSE / "feedback" / "delegates" / name / f"{name}.html").read_text()
        )
        assignment = next(a for a in graded["built"] if a.name == name)
        for exercise in assignment.exercises:
            if exercise.kind == "implement" and exercise.delegates and exercise.hidden_cases:
                delegated += 1
                assert grades[exercise.grade_id][0] == 0, f"{name}, {exercise.name}"
                assert f"{exercise.name} calls the course's own" in feedback, exercise.name
    assert delegated >= 2, "no graded lesson has an exercise the course's helpers answer"


def test_an_untouched_submission_logs_no_checksum_warning(graded):
    assert "has changed" not in graded["untouched_log"], graded["untouched_log"][-2000:]
    assert "Autograding" in graded["untouched_log"]


def test_the_grade_table_lists_every_student(graded):
    table = (COURSE / "grades.csv").read_text()
    for student in STUDENTS:
        assert f",{student}," in table


def test_feedback_typesets_its_math_offline(graded):
    """Issue 42: nbgrader's feedback template loads MathJax from a CDN; the course's config turns
    every formula of a markdown cell into MathML, which the browser typesets with no script, and
    the page loads nothing from the network."""
    from helpers.exercises._feedback import markdown_to_mathml

    pages = sorted((COURSE / "feedback").rglob("*.html"))
    assert pages, "no feedback was generated"
    total = 0
    for page in pages:  # feedback/<student>/<assignment>/<assignment>.html
        student, name = page.parent.parent.name, page.stem
        text = page.read_text(encoding="utf-8")
        assert not re.findall(r"""(?:src|href)=["']?(?:https?:)?//""", text), page.name
        assert "cdnjs" not in text and "MathJax.Hub" not in text, page.name
        graded = COURSE / "autograded" / student / name / f"{name}.ipynb"
        notebook = nbformat.read(graded, as_version=4)
        formulas = sum(
            markdown_to_mathml(c.source)[1] for c in notebook.cells if c.cell_type == "markdown"
        )
        assert text.count("<math ") == formulas, (student, name, formulas)
        total += formulas
    assert total > 0  # some page had formulas to typeset
