"""Build nbgrader assignments from the course: one source notebook per lesson with exercises.

    python scripts/build_assignments.py                       # every lesson -> _build/grading/
    python scripts/build_assignments.py --course /srv/course 03 07   # some lessons, elsewhere

One source of truth: nothing is written twice. For each lesson ``notebooks/NN_*.ipynb`` and its
worked solutions ``notebooks/solutions/NN_*.ipynb`` the script finds, by structure (not by cell
index):

- **implementation exercises**: a code cell calling ``check_x(my_y)``; the exercise text is the
  markdown before the stub ``def my_y`` (the numbered item naming ``my_y`` where one cell lists
  several), the worked answer is the solution's ``def my_y``;
- **written exercises**: the items marked ``**Explain.**``; the worked solution's text for the
  same number becomes the grader's reference.

It writes an nbgrader course folder (``nbgrader_config.py``, ``source/NN_name/NN_name.ipynb``):
a locked set-up cell (the lesson's imports), then per implementation exercise its text, a
solution cell (the worked body between ``### BEGIN SOLUTION`` / ``### END SOLUTION``) and an
autograded, locked test cell: ``assert check_x(my_y)``, then the *graded cases*, drawn here with a
seed of this build from the checker's own cases (new float values, shuffled token ids, other sizes
of the same parity) and answered by the worked solution. The graded cases are written as JSON to
``graded_cases/NN_name.json`` in the course folder, never into a notebook: the test cell only
names them (``run_graded_cases(my_y, "NN_name", "my_y")``, in ``helpers.exercises._graded``), so
neither the student version nor the feedback, which shows every cell's source, can carry them.
The helpers a checker computes its expected answers with are the exercise's *references*: the
student version's set-up cell does not import them, and an answer that calls one gets 0 for the
exercise, with a message saying why. Written exercises become manually graded answer cells
holding the worked answer.

The graded cases are drawn by ``scripts/_graded_cases.py``. Needs only the course's own
environment (nbgrader itself runs the folder afterwards).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import io
import json
import re
import secrets
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _course import ROOT, lesson_notebooks  # noqa: E402
from _graded_cases import (  # noqa: E402
    delegates,
    encode,
    graded_spec,
    recording,
    references,
    submittable_mistakes,
    tracing,
    without_names,
)

IMPLEMENT_POINTS = 3  # per implementation exercise (autograded)
WRITTEN_POINTS = 2  # per written exercise (graded by hand)
CELL_TIMEOUT_S = 60  # nbgrader's limit per cell while autograding
COURSE_ID = "position-in-transformers"
CASES_FOLDER = "graded_cases"  # in the course folder, beside nbgrader_config.py
FEEDBACK_TEMPLATES = "feedback_templates"  # the feedback's offline MathJax macro
DEFAULT_COURSE = ROOT / "_build" / "grading"

_CHECK_CALL = re.compile(r"\b(check_\w+)\(\s*(my_\w+)\s*\)")
_ITEM_START = re.compile(r"^(?:\*\*(\d+)\.|(\d+)\.\s+\*\*|#+\s*Exercise\s+(\d+)\b)", re.MULTILINE)
_EXPLAIN = re.compile(r"\*\*\s*(?:\d+\.\s*)?Explain\.?\s*\*\*")

__all__ = ["Assignment", "Exercise", "build", "find_exercises", "main"]


@dataclass
class Exercise:
    """One graded exercise of a lesson."""

    number: int
    kind: str  # "implement" or "written"
    text: str  # the learner-facing statement (markdown)
    points: int
    name: str = ""  # my_y (implement) or written_N
    checker: str = ""  # check_x (implement)
    context: list[str] = field(default_factory=list)  # code cells the statement refers to
    solution: str = ""  # the worked def (implement) or the worked answer (written, markdown)
    hidden_cases: int = 0  # graded cases drawn for it
    mistakes: list[tuple[str, str]] = field(default_factory=list)  # (import path, hint)
    references: list[str] = field(default_factory=list)  # module:qualname the checker answers with
    delegates: list[str] = field(default_factory=list)  # references that pass the checker as is
    note: str = ""  # why something (graded cases, mistakes) is missing

    @property
    def grade_id(self) -> str:
        return f"test_{self.name}" if self.kind == "implement" else self.name


@dataclass
class Assignment:
    """One lesson's assignment: what the course folder's source notebook holds."""

    name: str
    exercises: list[Exercise]
    path: Path | None = None
    dropped: list[str] = field(default_factory=list)  # exercises left out, with the reason

    @property
    def autograded_points(self) -> int:
        return sum(e.points for e in self.exercises if e.kind == "implement")


# ------------------------------------------------------------------------------ finding


def _items(markdown: str) -> list[tuple[int, str]]:
    """Split a markdown cell into its numbered exercise items: (number, text)."""
    starts = list(_ITEM_START.finditer(markdown))
    items = []
    for i, match in enumerate(starts):
        end = starts[i + 1].start() if i + 1 < len(starts) else len(markdown)
        number = int(next(g for g in match.groups() if g))
        items.append((number, markdown[match.start() : end].strip()))
    return items


def _defines(source: str, name: str) -> bool:
    return re.search(rf"^\s*def {re.escape(name)}\(", source, re.MULTILINE) is not None


def _markdown_groups(cells: list) -> list[str]:
    """The markdown of ``cells`` as an author wrote it: each markdown cell joined with the
    cells of slide type ``notes`` right after it (its elaboration, split off for the slides)."""
    groups: list[str] = []
    for index, cell in enumerate(cells):
        if cell.cell_type != "markdown":
            continue
        kind = cell.get("metadata", {}).get("slideshow", {}).get("slide_type")
        if kind == "notes" and index and cells[index - 1].cell_type == "markdown" and groups:
            groups[-1] += "\n\n" + cell.source
        else:
            groups.append(cell.source)
    return groups


def _exercise_region(cells: list) -> list:
    """The cells from the ``## Exercises`` heading on (all cells if there is none)."""
    for i, cell in enumerate(cells):
        if cell.cell_type == "markdown" and re.match(r"#+\s*Exercises", cell.source):
            return cells[i:]
    return cells


def _implementation(cells: list, index: int, checker: str, name: str) -> Exercise:
    """The exercise whose checker call is ``cells[index]``: statement and context cells."""
    stub = next(
        i
        for i in range(index, -1, -1)
        if cells[i].cell_type == "code" and _defines(cells[i].source, name)
    )
    context = []
    i = stub - 1
    while i >= 0 and cells[i].cell_type == "code":
        if "my_" in cells[i].source or _CHECK_CALL.search(cells[i].source):
            break
        context.insert(0, cells[i].source)
        i -= 1
    # the statement: the nearest markdown above with numbered items, read with the author's
    # notes cells that continue it (a paragraph split for the slides reads as one)
    groups = [g for g in _markdown_groups(cells[: i + 1]) if _items(g)] if i >= 0 else []
    statement = groups[-1] if groups else ""
    items = _items(statement)
    named = [item for item in items if name in item[1]]
    number, text = (named or items or [(0, statement)])[-1]
    return Exercise(number, "implement", text, IMPLEMENT_POINTS, name, checker, context)


def find_exercises(lesson: nbformat.NotebookNode) -> list[Exercise]:
    """The lesson's implementation exercises (by their checker calls) and written ones."""
    cells = _exercise_region(lesson.cells)
    exercises: list[Exercise] = []
    for i, cell in enumerate(cells):
        if cell.cell_type != "code":
            continue
        for checker, name in _CHECK_CALL.findall(cell.source):
            if all(e.name != name for e in exercises):
                exercises.append(_implementation(cells, i, checker, name))
        # a stub and its checker may share a cell, or the checker may come one cell later
    for group in _markdown_groups(cells):
        for number, text in _items(group):
            if _EXPLAIN.search(text.split("\n", 1)[0]):
                name = f"written_{number}"
                exercises.append(Exercise(number, "written", text, WRITTEN_POINTS, name))
    return sorted(exercises, key=lambda e: e.number)


# ------------------------------------------------------------------------------ solutions


def _function_source(source: str, name: str) -> str | None:
    """The source of ``def name`` (with its decorators) in a cell, or None."""
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == name:
            lines = source.splitlines()
            first = min([node.lineno] + [d.lineno for d in node.decorator_list])
            return "\n".join(lines[first - 1 : node.end_lineno])
    return None


def _solution_code(solutions: nbformat.NotebookNode, name: str) -> str | None:
    for cell in solutions.cells:
        if cell.cell_type == "code" and _defines(cell.source, name):
            return _function_source(cell.source, name)
    return None


def _solution_text(solutions: nbformat.NotebookNode, number: int) -> str:
    """The worked answer of exercise ``number``: its cells up to the next exercise, as markdown."""
    parts: list[str] = []
    inside = False
    for cell in solutions.cells:
        if cell.cell_type == "markdown":
            starts = [n for n, _ in _items(cell.source)]
            if starts and inside and starts[0] != number:
                break
            if number in starts:
                inside = True
                item = dict(_items(cell.source))[number]
                parts.append(item)
                continue
            if inside and re.match(r"\*\*Back to the lesson", cell.source):
                break
        if inside:
            parts.append(
                cell.source if cell.cell_type == "markdown" else f"```python\n{cell.source}\n```"
            )
    return "\n\n".join(parts)


def _marked_solution(code: str) -> str:
    """``def`` line(s) kept, the body between nbgrader's solution markers."""
    tree = ast.parse(code).body[0]
    assert isinstance(tree, ast.FunctionDef)
    lines = code.splitlines()
    first_body = tree.body[0]
    offset = min([tree.lineno] + [d.lineno for d in tree.decorator_list])
    split = first_body.lineno - offset  # lines before the body (signature, maybe comments)
    header = lines[:split]
    while header and header[-1].strip().startswith("#"):  # comments belong to the body
        split -= 1
        header = lines[:split]
    indent = re.match(r"\s*", lines[first_body.lineno - offset]).group(0)
    body = lines[split:]
    return "\n".join(header + [f"{indent}### BEGIN SOLUTION", *body, f"{indent}### END SOLUTION"])


# ------------------------------------------------------------------------------ cells


def _cell(
    kind: str, source: str, grade_id: str | None = None, **flags: Any
) -> nbformat.NotebookNode:
    make = nbformat.v4.new_code_cell if kind == "code" else nbformat.v4.new_markdown_cell
    cell = make(source)
    if grade_id is not None:
        meta = {"grade": False, "solution": False, "locked": False, "task": False}
        meta.update(flags, grade_id=grade_id, schema_version=3)
        cell.metadata["nbgrader"] = meta
    return cell


def _test_source(exercise: Exercise, assignment: str) -> str:
    lines = [
        f'"""{exercise.checker}: {exercise.points} points (its message above says why it fails)."""',
        "from helpers.exercises._graded import run_graded_cases",
        "",
        f"assert {exercise.checker}({exercise.name}), {exercise.checker!r} + ' failed: see above'",
    ]
    if exercise.hidden_cases:
        lines.append(
            f'assert run_graded_cases({exercise.name}, "{assignment}", "{exercise.name}"), '
            "'graded cases failed: see above'"
        )
    return "\n".join(lines)


def _setup_source(lesson: nbformat.NotebookNode, solutions: nbformat.NotebookNode) -> str:
    """The lesson's set-up cell, plus any import its worked solutions add."""
    first = next(c.source for c in lesson.cells if c.cell_type == "code")
    extra = []
    solution_setup = next((c.source for c in solutions.cells if c.cell_type == "code"), "")
    for node in ast.parse(solution_setup).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            line = ast.get_source_segment(solution_setup, node)
            if line and line not in first:
                extra.append(line)
    return first + ("\n" + "\n".join(extra) if extra else "")


# ------------------------------------------------------------------------------ building


def _run_solutions(setup: str, exercises: list[Exercise]) -> tuple[dict, dict, dict]:
    """Execute the set-up and the worked defs; record each checker's call on its solution and
    the exercise's references. Returns the namespace, the recorded calls and {name: why} for
    solutions that fail there (e.g. a def that needs a constant from another cell)."""
    namespace: dict[str, Any] = {"__name__": "__assignment__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(setup, "<setup>", "exec"), namespace)  # noqa: S102  (the course's own code)
    recorded: dict[str, dict] = {}
    failed: dict[str, str] = {}
    for exercise in exercises:
        if exercise.kind != "implement":
            continue
        try:
            exec(compile(exercise.solution, f"<{exercise.name}>", "exec"), namespace)  # noqa: S102
            with recording() as calls, tracing() as seen:
                passed = namespace[exercise.checker](namespace[exercise.name])
        except Exception as error:  # a checker that raises, or a def that cannot run alone
            passed, calls, seen = False, [], {"checker": [], "solution": set()}
            failed[exercise.name] = f"{type(error).__name__}: {error}"
        if not passed:
            failed.setdefault(
                exercise.name, f"fails {exercise.checker} after the set-up cell alone"
            )
        elif calls:
            recorded[exercise.name] = calls[-1]
        # What the checker answers with, less what the worked solution itself may use.
        exercise.references = references(seen, calls[-1]["cases"] if calls else [])
    return namespace, recorded, failed


def _graded_entry(
    exercise: Exercise, call: dict | None, solution: Callable, seed: int
) -> dict | None:
    """The exercise's graded cases and references, as stored in ``graded_cases/``."""
    if call is None:
        exercise.note = f"{exercise.checker} does not use run_checker: no graded cases"
        return None
    exercise.mistakes = submittable_mistakes(call)
    if not exercise.mistakes:
        exercise.note = f"none of {exercise.checker}'s named mistakes can be handed in as is"
    rng = np.random.default_rng([seed, exercise.number])
    spec = graded_spec(call, solution, rng)
    data = encode(spec) if spec else None
    if data is None:
        exercise.note = "no graded case could be drawn from the checker's cases (or too large)"
        return None
    exercise.hidden_cases = len(spec["cases"])
    return {"spec": data, "references": exercise.references}


def _attach_solutions(exercises: list[Exercise], solutions: nbformat.NotebookNode) -> list[str]:
    """Give each exercise its worked answer; return why some have none."""
    dropped = []
    for exercise in exercises:
        if exercise.kind == "implement":
            exercise.solution = _solution_code(solutions, exercise.name) or ""
            if not exercise.solution:
                dropped.append(f"{exercise.name}: the worked solutions do not define it")
        else:
            exercise.solution = _solution_text(solutions, exercise.number)
            if not exercise.solution:
                dropped.append(f"{exercise.name}: no worked answer for exercise {exercise.number}")
    return dropped


def _exercise_cells(exercise: Exercise, assignment: str) -> list[nbformat.NotebookNode]:
    """Statement, then (written) the answer cell or (implement) context, solution and test."""
    cells = [_cell("markdown", exercise.text, f"text_{exercise.number}", locked=True)]
    if exercise.kind == "written":
        flags = {"solution": True, "grade": True, "points": exercise.points}
        return [*cells, _cell("markdown", exercise.solution, exercise.name, **flags)]
    for i, context in enumerate(exercise.context):
        cells.append(_cell("code", context, f"context_{exercise.name}_{i}", locked=True))
    cells.append(_cell("code", _marked_solution(exercise.solution), exercise.name, solution=True))
    test = _test_source(exercise, assignment)
    cells.append(
        _cell("code", test, exercise.grade_id, grade=True, locked=True, points=exercise.points)
    )
    return cells


def build_one(lesson_path: Path, course: Path, seed: int) -> Assignment | str:
    """Write ``source/NAME/NAME.ipynb`` for one lesson; return it, or why it is skipped."""
    solution_path = lesson_path.parent / "solutions" / lesson_path.name
    lesson = nbformat.read(lesson_path, as_version=4)
    exercises = find_exercises(lesson)
    if not any(e.kind == "implement" for e in exercises):
        return "no implementation exercise (no check_*(my_*) cell)"
    if not solution_path.exists():
        return f"no worked solutions ({solution_path.relative_to(ROOT)})"
    solutions = nbformat.read(solution_path, as_version=4)
    dropped = _attach_solutions(exercises, solutions)
    exercises = [e for e in exercises if e.solution]
    setup = _setup_source(lesson, solutions)
    namespace, recorded, failed = _run_solutions(setup, exercises)
    setup, namespace, recorded, failed = _setup_without_references(
        setup, exercises, (namespace, recorded, failed)
    )
    dropped += [f"{name}: the worked solution {why}" for name, why in failed.items()]
    exercises = [e for e in exercises if e.name not in failed]
    if not any(e.kind == "implement" for e in exercises):
        return "no implementation exercise left: " + "; ".join(dropped)
    for exercise in exercises:
        if exercise.kind == "implement":
            exercise.delegates = delegates(exercise.references, namespace[exercise.checker])

    title = lesson.cells[0].source.splitlines()[0].lstrip("# ").strip()
    intro = (
        f"# Assignment: {title}\n\nFill in every cell marked `YOUR CODE HERE` or `YOUR ANSWER "
        "HERE`. The test cells check your functions as the lesson's checkers do, and on more "
        "cases when graded. Run the whole notebook before you submit (*Kernel, Restart and "
        "Run All*)."
    )
    cells = [
        _cell("markdown", intro, "intro", locked=True),
        _cell("code", setup, "setup", locked=True),
    ]
    graded: dict[str, dict] = {}
    for exercise in exercises:
        if exercise.kind == "implement":
            call = recorded.get(exercise.name)
            entry = _graded_entry(exercise, call, namespace[exercise.name], seed)
            if entry is not None:
                graded[exercise.name] = entry
        cells += _exercise_cells(exercise, lesson_path.stem)
    metadata = {k: v for k, v in lesson.metadata.items() if k in ("kernelspec", "language_info")}
    notebook = nbformat.v4.new_notebook(cells=cells, metadata=metadata)
    path = course / "source" / lesson_path.stem / f"{lesson_path.stem}.ipynb"
    path.parent.mkdir(parents=True, exist_ok=True)
    nbformat.write(notebook, path)
    cases = course / CASES_FOLDER / f"{lesson_path.stem}.json"
    cases.parent.mkdir(parents=True, exist_ok=True)
    stored = {"assignment": lesson_path.stem, "seed": seed, "exercises": graded}
    cases.write_text(json.dumps(stored), encoding="utf-8")
    return Assignment(lesson_path.stem, exercises, path, dropped)


def _setup_without_references(
    setup: str, exercises: list[Exercise], first_run: tuple[dict, dict, dict]
) -> tuple[str, dict, dict, dict]:
    """The set-up cell without the references it imports (a student version must not hand the
    student the answer), and the solutions' run with it. Names a context cell uses are kept;
    if the worked solutions need a dropped name after all, the set-up stays as it was."""
    context = "\n".join(c for e in exercises for c in e.context)
    names = {
        reference.split(":")[1].split(".")[0]
        for exercise in exercises
        for reference in exercise.references
    }
    names = {n for n in names if not re.search(rf"\b{re.escape(n)}\b", context)}
    reduced = without_names(setup, names)
    if reduced == setup:
        return (setup, *first_run)
    first_references = {e.name: e.references for e in exercises}
    namespace, recorded, failed = _run_solutions(reduced, exercises)
    if set(failed) != set(first_run[2]):
        for exercise in exercises:  # back to the first run's references
            exercise.references = first_references[exercise.name]
        return (setup, *first_run)
    return reduced, namespace, recorded, failed


def _write_config(course: Path) -> None:
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(
        "# Written by scripts/build_assignments.py; see notebooks/guide_lecturers.md, 'Grading'.\n"
        "c = get_config()  # noqa: F821\n"
        f'c.CourseDirectory.course_id = "{COURSE_ID}"\n'
        f"c.Execute.timeout = {CELL_TIMEOUT_S}  # seconds per cell while autograding\n"
        "c.Execute.interrupt_on_timeout = True  # a cell that hangs is stopped, the rest graded\n"
        "# a busy machine can deliver a cell's output seconds after the cell ends (default 4 s)\n"
        "c.Execute.iopub_timeout = 60\n"
        "c.ClearSolutions.code_stub = {\n"
        '    "python": "# YOUR CODE HERE\\nraise NotImplementedError()",\n'
        "}\n"
        "# Feedback pages typeset their math offline: formulas become MathML (helpers.exercises.\n"
        "# _feedback) and the template's MathJax macro, which loads MathJax from a CDN, loads nothing.\n"
        "import os  # noqa: E402\n"
        "import nbgrader  # noqa: E402\n"
        "\n"
        "_here = os.path.dirname(os.path.abspath(__file__))  # noqa: F821\n"
        "_nbgrader = os.path.join(\n"
        '    os.path.dirname(nbgrader.__file__), "server_extensions", "formgrader", "templates"\n'
        ")\n"
        "c.GenerateFeedback.preprocessors = [\n"
        '    "nbgrader.preprocessors.GetGrades",\n'
        '    "nbconvert.preprocessors.CSSHTMLHeaderPreprocessor",\n'
        '    "helpers.exercises._feedback.MathToMathML",\n'
        "]\n"
        f'c.HTMLExporter.extra_template_basedirs = [os.path.join(_here, "{FEEDBACK_TEMPLATES}"), _nbgrader]\n'
    )
    macro = course / FEEDBACK_TEMPLATES / "base" / "mathjax.html.j2"
    macro.parent.mkdir(parents=True, exist_ok=True)
    macro.write_text(
        "{#- Written by scripts/build_assignments.py: the math is MathML, typeset by the browser,\n"
        "    so the feedback page loads no MathJax (nbgrader's template would, from a CDN). -#}\n"
        '{%- macro mathjax(url="") -%}{%- endmacro %}\n'
    )


def build(
    course: Path,
    lessons: list[str] | None = None,
    seed: int | None = None,
    log: Callable[[str], None] = print,
) -> list[Assignment]:
    """Build the course folder for the lessons whose numbers are in ``lessons`` (all: None)."""
    torch.set_num_threads(1)
    seed = secrets.randbits(32) if seed is None else seed
    _write_config(course)
    built = []
    for path in lesson_notebooks():
        if lessons is not None and path.name[:2] not in lessons:
            continue
        result = build_one(path, course, seed)
        if isinstance(result, str):
            log(f"skipped {path.stem}: {result}")
            continue
        built.append(result)
        parts = [
            f"{e.name} ({e.points} pt, {e.hidden_cases} graded cases)" for e in result.exercises
        ]
        log(f"built {result.name}: " + ", ".join(parts))
        for exercise in result.exercises:
            if exercise.note:
                log(f"  note, {exercise.name}: {exercise.note}")
        for reason in result.dropped:
            log(f"  left out, {reason}")
    manifest = [
        {
            "assignment": a.name,
            "exercises": [e.__dict__ | {"grade_id": e.grade_id} for e in a.exercises],
        }
        for a in built
    ]
    (course / "assignments.json").write_text(json.dumps(manifest, indent=1, default=str))
    return built


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lessons", nargs="*", help="lesson numbers (e.g. 03 07); default: all")
    parser.add_argument(
        "--course",
        type=Path,
        default=DEFAULT_COURSE,
        help=f"the nbgrader course folder (default: {DEFAULT_COURSE.relative_to(ROOT)})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="seed of the graded cases (default: a fresh random one)",
    )
    args = parser.parse_args(argv)
    built = build(args.course.resolve(), [n.zfill(2) for n in args.lessons] or None, args.seed)
    print(f"{len(built)} assignments in {args.course / 'source'}")
    return 0 if built else 1


if __name__ == "__main__":
    raise SystemExit(main())
