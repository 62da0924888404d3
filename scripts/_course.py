"""Where the course's notebooks are, and the course manifest: the one listing every script and
test uses.

Light on purpose (only the standard library), so that a test can import it without nbconvert.
A script run as ``python scripts/x.py`` imports it as ``_course``; a test puts ``scripts/`` on
``sys.path`` first.

The manifest, ``notebooks/course.toml``, holds one ``[[lessons]]`` table per lesson (its header
comment says what each key means); :func:`lessons` reads and validates it. ``scripts/course.py``
generates from it every table, link and count that lists the lessons.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_GLOB = "[0-9][0-9]_*.ipynb"  # NN_name.ipynb: lessons and their worked solutions
MANIFEST = Path("notebooks") / "course.toml"  # relative to the repository root
BUDGET_S, TRAINING_BUDGET_S = 30, 45  # a lesson's run-time budget; one that trains many models

__all__ = [
    "BUDGET_S",
    "MANIFEST",
    "ROOT",
    "TRAINING_BUDGET_S",
    "Lesson",
    "course_notebooks",
    "lesson_notebooks",
    "lessons",
    "portable_notebooks",
    "solution_notebooks",
]


def lesson_notebooks(root: Path = ROOT) -> list[Path]:
    """The lessons ``notebooks/NN_*.ipynb`` of the course at ``root``, in course order."""
    return sorted((Path(root) / "notebooks").glob(NOTEBOOK_GLOB))


def solution_notebooks(root: Path = ROOT) -> list[Path]:
    """The worked solutions ``notebooks/solutions/NN_*.ipynb``, in course order."""
    return sorted((Path(root) / "notebooks" / "solutions").glob(NOTEBOOK_GLOB))


def course_notebooks(root: Path = ROOT) -> list[Path]:
    """Every notebook of the course: the lessons in order, then the worked solutions."""
    return lesson_notebooks(root) + solution_notebooks(root)


@dataclass(frozen=True)
class Lesson:
    """One lesson of the manifest (``notebooks/course.toml``; its header explains each field)."""

    stem: str
    title: str
    question: str
    learn: str
    sessions: tuple[int, ...]
    trains: bool
    portable: bool
    graded: bool
    solutions: bool
    solutions_portable: bool = False
    run_s: int | None = None  # measured: None until scripts/time_notebooks.py --write
    solutions_run_s: int | None = None
    study_min: tuple[int, int, int] | None = None  # measured: --study --write-study
    exercises: int | None = None

    @property
    def number(self) -> str:
        """The lesson's two-digit number, ``"03"``."""
        return self.stem[:2]

    @property
    def name(self) -> str:
        """The stem without its number, ``"sinusoidal_encoding"``."""
        return self.stem[3:]

    @property
    def file(self) -> str:
        """The notebook's file name, ``"03_sinusoidal_encoding.ipynb"``."""
        return f"{self.stem}.ipynb"

    @property
    def budget_s(self) -> int:
        """The run time the lesson must fit: 45 s when it trains many models, else 30 s."""
        return TRAINING_BUDGET_S if self.trains else BUDGET_S

    def path(self, root: Path = ROOT) -> Path:
        return Path(root) / "notebooks" / self.file

    def solutions_path(self, root: Path = ROOT) -> Path:
        return Path(root) / "notebooks" / "solutions" / self.file


_TYPES = {
    "stem": str,
    "title": str,
    "question": str,
    "learn": str,
    "sessions": list,
    "trains": bool,
    "portable": bool,
    "graded": bool,
    "solutions": bool,
    "solutions_portable": bool,
    "run_s": int,
    "solutions_run_s": int,
    "study_min": list,
    "exercises": int,
}
_REQUIRED = ("stem", "title", "question", "learn", "sessions", "trains", "portable", "graded")


def _lesson(entry: dict, where: str) -> Lesson:
    """One ``[[lessons]]`` table as a :class:`Lesson`; ValueError naming what is wrong."""
    unknown = sorted(set(entry) - set(_TYPES))
    missing = [key for key in (*_REQUIRED, "solutions") if key not in entry]
    if unknown or missing:
        raise ValueError(f"{where}: unknown keys {unknown}, missing keys {missing}")
    for key, value in entry.items():
        if not isinstance(value, _TYPES[key]) or (_TYPES[key] is int and isinstance(value, bool)):
            raise ValueError(f"{where}: {key} = {value!r}, expected a {_TYPES[key].__name__}")
    if not all(isinstance(s, int) and s > 0 for s in entry["sessions"]):
        raise ValueError(f"{where}: sessions = {entry['sessions']!r}, expected session numbers")
    study = entry.get("study_min")
    if study is not None and (len(study) != 3 or not all(isinstance(m, int) for m in study)):
        raise ValueError(
            f"{where}: study_min = {study!r}, expected [core, with exercises, optional]"
        )
    if not entry["solutions"] and ("solutions_portable" in entry or "solutions_run_s" in entry):
        raise ValueError(f"{where}: solutions = false, yet solutions_* keys are set")
    return Lesson(
        **{
            **entry,
            "sessions": tuple(entry["sessions"]),
            "study_min": tuple(study) if study is not None else None,
        }
    )


def lessons(root: Path = ROOT) -> list[Lesson]:
    """The lessons of the manifest of the course at ``root``, in course order. ValueError when
    an entry has an unknown, missing or mistyped key, or the numbers do not run 00, 01, ..."""
    path = Path(root) / MANIFEST
    with path.open("rb") as file:
        entries = tomllib.load(file).get("lessons", [])
    found = [_lesson(entry, f"{MANIFEST}, lesson {i}") for i, entry in enumerate(entries)]
    numbers = [lesson.number for lesson in found]
    expected = [f"{i:02d}" for i in range(len(found))]
    if numbers != expected or not all(lesson.stem[2:3] == "_" for lesson in found):
        raise ValueError(f"{MANIFEST}: stems numbered {numbers}, expected NN_name for {expected}")
    return found


def portable_notebooks(root: Path = ROOT) -> list[Path]:
    """The notebooks ``.ci/run`` re-runs under its portability checks (flags ``portable`` and
    ``solutions_portable``): the lessons in order, then the worked solutions."""
    course = lessons(root)
    return [lesson.path(root) for lesson in course if lesson.portable] + [
        lesson.solutions_path(root) for lesson in course if lesson.solutions_portable
    ]
