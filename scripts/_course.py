"""Where the course's notebooks are: the one listing every script and test uses.

Light on purpose (only the standard library), so that a test can import it without nbconvert.
A script run as ``python scripts/x.py`` imports it as ``_course``; a test puts ``scripts/`` on
``sys.path`` first.
"""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOK_GLOB = "[0-9][0-9]_*.ipynb"  # NN_name.ipynb: lessons and their worked solutions

__all__ = ["ROOT", "course_notebooks", "lesson_notebooks", "solution_notebooks"]


def lesson_notebooks(root: Path = ROOT) -> list[Path]:
    """The lessons ``notebooks/NN_*.ipynb`` of the course at ``root``, in course order."""
    return sorted((Path(root) / "notebooks").glob(NOTEBOOK_GLOB))


def solution_notebooks(root: Path = ROOT) -> list[Path]:
    """The worked solutions ``notebooks/solutions/NN_*.ipynb``, in course order."""
    return sorted((Path(root) / "notebooks" / "solutions").glob(NOTEBOOK_GLOB))


def course_notebooks(root: Path = ROOT) -> list[Path]:
    """Every notebook of the course: the lessons in order, then the worked solutions."""
    return lesson_notebooks(root) + solution_notebooks(root)
