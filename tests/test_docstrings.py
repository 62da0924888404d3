"""Every public function and class of ``helpers`` names the lesson that derives or uses it.

Learners are sent from the notebooks into ``helpers``; the way back is one sentence in each
docstring, "Derived in notebook 06." or "Used in notebooks 10 and 13.", which this test asks for
(``notebook NN`` or ``notebooks NN``). The public modules are those tests/test_bad_inputs.py
walks (tests/_public_api.py); each object counts once, in the module that defines it.
"""

from __future__ import annotations

import inspect
import re

from _public_api import public_modules

NOTEBOOK = re.compile(r"\bnotebooks? \d{2}\b")


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


def test_the_pattern_accepts_the_course_phrasings_only():
    for text in ("Derived in notebook 06.", "Used in notebooks 10 and 13.", "(notebooks 06-08)"):
        assert NOTEBOOK.search(text), text
    for text in ("Used in a notebook.", "notebook 6", "See lesson 06."):
        assert not NOTEBOOK.search(text), text
