"""Every public function and class of ``helpers`` names the lesson that derives or uses it.

Learners are sent from the notebooks into ``helpers``; the way back is one sentence in each
docstring, "Derived in notebook 06." or "Used in notebooks 10 and 13.", which this test asks for
(``notebook NN`` or ``notebooks NN``). The public modules are those tests/test_bad_inputs.py
walks (tests/_public_api.py); each object counts once, in the module that defines it.

The way back must lead somewhere: every notebook a docstring names (``notebooks 10, 12 and 15``,
``notebooks 03-04``) must show the object's name, in a code or markdown cell of the lesson or of
its worked solutions, or the name of an object the docstring cites (``Used by :func:`train`
(notebook 10)``: lesson 10 calls ``train``). A use the lessons never show is told as "lesson NN",
which this test does not read.
"""

from __future__ import annotations

import inspect
import json
import re
from functools import cache
from pathlib import Path

import pytest
from _public_api import public_modules

NOTEBOOK = re.compile(r"\bnotebooks? \d{2}\b")
# "notebook 03", "notebooks 03-04", "notebooks 10, 12 and 15", "notebooks 00 to 17"
NAMED = re.compile(r"\bnotebooks? (\d{2}(?:(?:, and |, | and | or |-| to )\d{2})*)")
CITED = re.compile(r":(?:func|class|meth|data|attr):`~?([\w.]+)`")
NOTEBOOKS = Path(__file__).resolve().parents[1] / "notebooks"
# Named notebooks that do not show the object yet, each with the reason; a strict xfail, so
# that the case fails (and its entry must go) once the docstring or the lesson is fixed.
NOT_SHOWN_YET: dict[str, str] = {}  # label -> why its notebook does not show it yet (strict xfail)


def public_objects() -> dict[str, object]:
    """Every public function and class, by ``module.name`` of the module that defines it."""
    found = {}
    for module in public_modules():
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) or inspect.isclass(obj):
                found[f"{obj.__module__}.{obj.__qualname__}"] = obj
    return found


def _without_notebook(objects: dict[str, object]) -> list[str]:
    return sorted(
        label for label, obj in objects.items() if not NOTEBOOK.search(inspect.getdoc(obj) or "")
    )


def test_every_public_function_and_class_names_its_notebook():
    objects = public_objects()
    assert len(objects) >= 50, "the walk found too few objects: is the package importable?"
    missing = _without_notebook(objects)
    assert not missing, (
        "docstrings that name no notebook (add 'Derived in notebook NN.' or "
        f"'Used in notebooks NN and MM.'): {missing}"
    )


def named_notebooks(doc: str) -> list[str]:
    """The two-digit numbers of the notebooks ``doc`` names, ranges expanded, in order."""
    numbers = []
    for match in NAMED.finditer(doc):
        parts = re.split(r"(, and |, | and | or |-| to )", match.group(1))
        numbers.append(parts[0])
        for joint, number in zip(parts[1::2], parts[2::2], strict=True):
            if joint in ("-", " to "):
                numbers += [f"{n:02d}" for n in range(int(numbers[-1]) + 1, int(number) + 1)]
            else:
                numbers.append(number)
    return list(dict.fromkeys(numbers))


@cache
def notebook_text(number: str) -> str:
    """The code and markdown of lesson ``number`` and of its worked solutions."""
    paths = sorted(NOTEBOOKS.glob(f"{number}_*.ipynb")) + sorted(
        NOTEBOOKS.glob(f"solutions/{number}_*.ipynb")
    )
    assert paths, f"no notebook {number}"
    cells = [cell for path in paths for cell in json.loads(path.read_text())["cells"]]
    return "\n".join("".join(cell["source"]) for cell in cells)


def _not_shown(obj: object) -> list[str]:
    """The named notebooks that show neither the object's name nor a name its docstring cites."""
    doc = inspect.getdoc(obj) or ""
    names = {obj.__name__} | {cited.rsplit(".", 1)[-1] for cited in CITED.findall(doc)}
    alternatives = "|".join(map(re.escape, sorted(names)))
    pattern = re.compile(rf"\b(?:{alternatives})\b")
    return [n for n in named_notebooks(doc) if not pattern.search(notebook_text(n))]


OBJECTS = public_objects()


@pytest.mark.parametrize(
    "label",
    [
        pytest.param(label, marks=pytest.mark.xfail(strict=True, reason=NOT_SHOWN_YET[label]))
        if label in NOT_SHOWN_YET
        else label
        for label in sorted(OBJECTS)
    ],
)
def test_the_named_notebooks_show_it(label):
    assert named_notebooks(inspect.getdoc(OBJECTS[label]) or ""), f"{label} names no notebook"
    missing = _not_shown(OBJECTS[label])
    assert not missing, (
        f"{label}'s docstring names notebooks {missing}, which never show it (nor a name the "
        f"docstring cites): name the notebooks that do, or say 'lesson NN' for a use not shown"
    )


def test_named_notebooks_reads_lists_and_ranges():
    doc = "Derived in notebook 03; used in notebooks 05, 07 and 13 (and notebooks 15-17)."
    assert named_notebooks(doc) == ["03", "05", "07", "13", "15", "16", "17"]
    assert named_notebooks("notebooks 00 to 02, or notebook 09") == ["00", "01", "02", "09"]
    assert named_notebooks("See lesson 12.") == []


def test_the_pattern_accepts_the_course_phrasings_only():
    for text in ("Derived in notebook 06.", "Used in notebooks 10 and 13.", "(notebooks 06-08)"):
        assert NOTEBOOK.search(text), text
    for text in ("Used in a notebook.", "notebook 6", "See lesson 06."):
        assert not NOTEBOOK.search(text), text
