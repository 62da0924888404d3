"""Check that this machine can run the course: ``python -m helpers.check_env``.

Prints one OK/FAIL line for Python, for every package pinned in ``requirements.txt`` (the course's
packages, the static site's Sphinx stack and Playwright), then notes on the optional Chromium that
the browser tests of the site and slides drive, and on the optional GPU, with the fix for each
failure. Exits 1 if a required check fails.
"""

from __future__ import annotations

import platform
import re
import shutil
import sys
from dataclasses import dataclass
from importlib import metadata
from os import PathLike
from pathlib import Path

__all__ = ["Check", "SUPPORTED_PYTHON", "read_pins", "run_checks", "main"]

SUPPORTED_PYTHON = ((3, 11), (3, 13))  # inclusive; the pinned Sphinx 9.0.4 needs 3.11+
REQUIREMENTS = Path(__file__).resolve().parents[1] / "requirements.txt"
_PIN = re.compile(r"^([A-Za-z0-9_.\-]+)==([^\s;#]+)")


@dataclass(frozen=True)
class Check:
    """The outcome of one check: what was checked, whether it passed, what was found, the fix.

    One line of the report that notebook 00 prints.
    """

    name: str
    ok: bool
    found: str
    fix: str = ""
    required: bool = True

    def line(self) -> str:
        status = "OK  " if self.ok else ("FAIL" if self.required else "note")
        text = f"{status} {self.name}: {self.found}"
        return text if self.ok or not self.fix else f"{text}\n       fix: {self.fix}"


def read_pins(path: str | Path = REQUIREMENTS) -> dict[str, str]:
    """``{package: version}`` for every ``name==version`` line of a requirements file.

    Used by :func:`run_checks` (notebook 00).
    """
    if not isinstance(path, str | PathLike):
        raise TypeError(f"path must be a str or pathlib.Path, got {type(path).__name__} {path!r}")
    pins = {}
    for line in Path(path).read_text(encoding="utf-8").splitlines():
        match = _PIN.match(line.strip())
        if match:
            pins[match.group(1).lower()] = match.group(2)
    return pins


def _python_check() -> Check:
    low, high = SUPPORTED_PYTHON
    found = platform.python_version()
    ok = low <= sys.version_info[:2] <= high
    fix = f"install Python {low[0]}.{low[1]}-{high[0]}.{high[1]} and recreate the environment"
    return Check("python", ok, found, "" if ok else fix)


def _package_check(name: str, pinned: str) -> Check:
    try:
        found = metadata.version(name)
    except metadata.PackageNotFoundError:
        return Check(
            name, False, "not installed", f"pip install -r requirements.txt ({name}=={pinned})"
        )
    ok = found.split("+")[0] == pinned  # torch's CPU wheel reports 2.13.0+cpu
    fix = f"pip install {name}=={pinned}"
    if name == "torch":
        fix += " --index-url https://download.pytorch.org/whl/cpu  (CPU-only build on Linux)"
    return Check(name, ok, f"{found} (pinned {pinned})", "" if ok else fix)


def _browser_check() -> Check:
    """Chromium for the browser tests of the site and slides (they skip without it)."""
    name = "chromium (optional)"
    if shutil.which("chromium") or shutil.which("chromium-browser"):
        return Check(name, True, "found; the site and slide browser tests run", required=False)
    fix = "apt-get install chromium (Debian/Ubuntu); Playwright drives it, no browser download"
    return Check(name, False, "not found; the browser tests will skip", fix, required=False)


def _gpu_check() -> Check:
    try:
        import torch
    except ImportError:
        return Check("gpu (optional)", False, "torch missing", required=False)
    if torch.cuda.is_available():
        return Check(
            "gpu (optional)", True, f"CUDA: {torch.cuda.get_device_name(0)}", required=False
        )
    mps = getattr(torch.backends, "mps", None)
    if mps is not None and mps.is_available():
        return Check("gpu (optional)", True, "Apple MPS", required=False)
    return Check("gpu (optional)", True, "none; the course runs on the CPU", required=False)


def run_checks(pins: dict[str, str] | None = None) -> list[Check]:
    """Every check, in the order they are printed. Used in notebook 00."""
    if pins is not None and not isinstance(pins, dict):
        raise TypeError(
            f"pins must be a dict {{package: version}}, got {type(pins).__name__} {pins!r}"
        )
    pins = read_pins() if pins is None else pins
    packages = [_package_check(n, v) for n, v in pins.items()]
    return [_python_check(), *packages, _browser_check(), _gpu_check()]


def main() -> int:
    """Print one line per check and a verdict; return 1 if a required check fails.

    The command-line form of :func:`run_checks` (notebook 00): ``python -m helpers.check_env``.
    """
    checks = run_checks()
    for check in checks:
        print(check.line())
    failed = [c.name for c in checks if c.required and not c.ok]
    print("environment OK" if not failed else f"environment has problems: {', '.join(failed)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
