"""What the tests that walk the public API share: which modules of ``helpers`` are public."""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import helpers


def public_modules() -> list[ModuleType]:
    """``helpers`` and every submodule whose dotted name has no part starting with ``_``."""
    names = ["helpers"] + [
        info.name
        for info in pkgutil.walk_packages(helpers.__path__, "helpers.")
        if not any(part.startswith("_") for part in info.name.split("."))
    ]
    return [importlib.import_module(name) for name in sorted(names)]
