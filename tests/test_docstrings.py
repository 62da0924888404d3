"""Every public function and class of ``helpers`` names the lesson that derives or uses it.

Learners are sent from the notebooks into ``helpers``; the way back is one sentence in each
docstring, "Derived in notebook 06." or "Used in notebooks 10 and 13.", which this test asks for
(``notebook NN`` or ``notebooks NN``). The public modules are those tests/test_bad_inputs.py
walks (tests/_public_api.py); each object counts once, in the module that defines it.
"""

from __future__ import annotations

import inspect
import re

import pytest
from _public_api import public_modules

NOTEBOOK = re.compile(r"\bnotebooks? \d{2}\b")

# Modules restructured on another branch at the time this test was written (issue 13): their
# docstrings get their notebook there. Skipped here; the lead empties this set after merging.
PENDING_CORE_MODULES = {
    "helpers.attention",
    "helpers.transformer",
    "helpers.encodings.alibi",
    "helpers.encodings.embedding",
    "helpers.encodings.learned",
    "helpers.encodings.relative",
    "helpers.encodings.rotary",
    "helpers.encodings.sinusoidal",
    "helpers.encodings.sinusoidal_2d",
}


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
    objects = {
        label: obj
        for label, obj in public_objects().items()
        if obj.__module__ not in PENDING_CORE_MODULES
    }
    assert len(objects) >= 50, "the walk found too few objects: is the package importable?"
    missing = _without_notebook(objects)
    assert not missing, (
        "docstrings that name no notebook (add 'Derived in notebook NN.' or "
        f"'Used in notebooks NN and MM.'): {missing}"
    )


@pytest.mark.parametrize("module", sorted(PENDING_CORE_MODULES))
def test_pending_modules_are_real_and_still_pending(module):
    objects = {k: v for k, v in public_objects().items() if v.__module__ == module}
    assert objects, f"{module} defines no public function or class: remove it from the set"
    assert _without_notebook(objects), (
        f"every docstring of {module} names its notebook: remove it from PENDING_CORE_MODULES"
    )


def test_the_pattern_accepts_the_course_phrasings_only():
    for text in ("Derived in notebook 06.", "Used in notebooks 10 and 13.", "(notebooks 06-08)"):
        assert NOTEBOOK.search(text), text
    for text in ("Used in a notebook.", "notebook 6", "See lesson 06."):
        assert not NOTEBOOK.search(text), text
