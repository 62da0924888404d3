"""The repository's promises: pins that do not drift, commands the README gives, package layering."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import check_env

ROOT = Path(__file__).resolve().parents[1]


def test_environment_yml_reuses_requirements_txt():
    env = yaml.safe_load((ROOT / "environment.yml").read_text())
    pip_sections = [d["pip"] for d in env["dependencies"] if isinstance(d, dict) and "pip" in d]
    assert len(pip_sections) == 1, "environment.yml needs exactly one pip section"
    pip_lines = pip_sections[0]
    assert "-r requirements.txt" in pip_lines
    # Nothing else may be pinned in the pip section: every version lives in requirements.txt.
    assert all(line.startswith(("-r ", "--extra-index-url ")) for line in pip_lines), pip_lines
    conda_pins = [d for d in env["dependencies"] if isinstance(d, str)]
    python = next(d for d in conda_pins if d.startswith("python="))
    major, minor = (int(p) for p in python.split("=")[1].split(".")[:2])
    low, high = check_env.SUPPORTED_PYTHON
    assert low <= (major, minor) <= high
    # No package may be named both by conda and by requirements.txt (two sources of truth).
    pins = check_env.read_pins(ROOT / "requirements.txt")
    assert not {d.split("=")[0].lower() for d in conda_pins} & set(pins)


def test_requirements_pin_torch_and_install_helpers_editable():
    text = (ROOT / "requirements.txt").read_text()
    pins = check_env.read_pins(ROOT / "requirements.txt")
    for name in ["torch", "jupyterlab", "numpy", "matplotlib", "seaborn", "nbval", "pytest"]:
        assert re.fullmatch(r"\d+(\.\d+)+", pins[name]), f"{name} not pinned exactly"
    assert re.search(r"^-e \.$", text, re.MULTILINE), "requirements.txt must install helpers (-e .)"


def test_read_pins_accepts_a_str_path_like_a_path():
    path = ROOT / "requirements.txt"
    assert check_env.read_pins(str(path)) == check_env.read_pins(path)
    line = next(x for x in path.read_text().splitlines() if x.startswith("torch=="))
    assert check_env.read_pins(str(path))["torch"] == line.removeprefix("torch==")


# The one source of every version is requirements.txt; environment.yml, .ci/run and
# helpers/check_env.py read it. Where a version must be spelled out for a reader (the README's
# CPU-only install command, the comment in requirements.txt), it is checked against the pin here.
PINNED_SPELLING = re.compile(r"\b([A-Za-z][\w.-]*)==(\d[\w.+-]*)")


def _pins_spelled_in_tracked_files() -> list[tuple[str, str, str]]:
    """Every ``name==version`` in the repository's tracked text files, but requirements.txt's
    own pin lines: (file, name, version)."""
    files = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split()
    found = []
    for name in files:
        path = ROOT / name
        if path.suffix in {".png", ".svg", ".woff2", ".ttf"} or not path.is_file():
            continue
        if name == "tests/test_repo.py":  # this file spells wrong pins on purpose
            continue
        for line in path.read_text(errors="replace").splitlines():
            if name == "requirements.txt" and not line.startswith("#"):
                continue  # the pins themselves
            found += [(name, *match) for match in PINNED_SPELLING.findall(line)]
    return found


def test_every_spelled_pin_equals_requirements_txt():
    pins = check_env.read_pins(ROOT / "requirements.txt")
    spelled = _pins_spelled_in_tracked_files()
    torch_spellings = {file for file, name, _ in spelled if name == "torch"}
    assert {"README.md", "requirements.txt"} <= torch_spellings, torch_spellings
    wrong = [
        (file, name, version)
        for file, name, version in spelled
        if name.lower() in pins and version != pins[name.lower()]
    ]
    assert not wrong, f"versions that differ from requirements.txt's pins: {wrong}"


def test_readme_gives_the_two_commands_that_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- install-and-open -->" in readme and "<!-- test-command -->" in readme
    install = readme.split("<!-- install-and-open -->")[1].split("```")[1]
    assert "pip install -r requirements.txt" in install and "jupyter lab" in install
    assert readme.split("<!-- test-command -->")[1].split("```")[1].strip() == "bash\npytest"
    # .ci/run reads both commands from the README instead of repeating them.
    assert "readme_command install-and-open" in ci and "readme_command test-command" in ci


def test_lesson_00_shows_as_many_checks_as_check_env_makes():
    """Lesson 00's committed output ("N of N checks OK", its output left out of nbval's
    comparison: a learner's machine may lack the optional browser) counts today's checks: one
    per pin of requirements.txt, Python, the browser and the GPU."""
    notebook = json.loads((ROOT / "notebooks" / "00_start_here.ipynb").read_text("utf-8"))
    printed = "".join(
        "".join(output.get("text", ""))
        for cell in notebook["cells"]
        if cell["cell_type"] == "code" and "run_checks()" in "".join(cell["source"])
        for output in cell.get("outputs", [])
    )
    total = len(check_env.read_pins(ROOT / "requirements.txt")) + 3
    assert f"{total} of {total} checks OK" in printed, printed


def test_check_env_reports_this_environment_ok(capsys):
    checks = check_env.run_checks()
    names = [c.name for c in checks]
    assert names[0] == "python" and "torch" in names and names[-1] == "gpu (optional)"
    assert all(c.ok for c in checks if c.required), [c.line() for c in checks if not c.ok]


def test_check_env_names_the_fix_for_a_wrong_pin():
    (bad,) = [c for c in check_env.run_checks({"numpy": "0.0.1"}) if c.name == "numpy"]
    assert not bad.ok and "pip install numpy==0.0.1" in bad.line()
    (missing,) = [
        c for c in check_env.run_checks({"no-such-pkg": "1.0"}) if c.name == "no-such-pkg"
    ]
    assert not missing.ok and "not installed" in missing.line()
    (torch_check,) = [c for c in check_env.run_checks({"torch": "9.9.9"}) if c.name == "torch"]
    assert "download.pytorch.org/whl/cpu" in torch_check.fix


def test_check_env_command_line_exits_zero():
    result = subprocess.run(
        [sys.executable, "-m", "helpers.check_env"],
        capture_output=True,
        text=True,
        check=False,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip().endswith("environment OK")


# Layering: every module of helpers has a layer, and imports from its own layer or lower ones
# only. A module (or subpackage) missing from the table fails the test: give it a layer.
LAYER = {
    "_checks": 0,  # argument checks: import nothing of helpers
    "_convert": 0,
    "check_env": 0,  # runs before anything else is known to work
    "encodings": 1,
    "data": 1,
    "plots": 1,  # with figure_record and diagram, which it re-exports: they draw what
    "figure_record": 1,  # they are given and import no model layer
    "diagram": 1,
    "attention": 2,  # knows no position scheme by name: never imports encodings' modules up
    "attention_sinks": 2,  # lesson 18's learned sinks and window masks
    "model_configs": 2,  # lesson 18's configuration bank: reads them with encodings' rules
    "transformer": 3,
    "training": 4,
    "extrapolation": 4,  # lesson 12's experiment: models and their training
    "per_layer_experiment": 4,  # lesson 18's experiment on lesson 12's task
    "widgets": 4,
    "exercises": 5,  # the checkers may use every model and helper
    "__init__": 6,  # the package's front door loads submodules on first use
}
HELPERS_MODULES = sorted((ROOT / "helpers").rglob("*.py"))


def _layer_name(path: Path) -> str:
    """The top-level module or subpackage of helpers that ``path`` belongs to."""
    return path.relative_to(ROOT / "helpers").parts[0].removesuffix(".py")


def _helpers_imports(path: Path, package: Path = ROOT / "helpers") -> set[str]:
    """The top-level modules of helpers that ``path`` imports (relative or absolute), outside
    its own subpackage; a name imported from the package itself that is no module of it
    (``from helpers import seed_everything``) counts as ``__init__``."""
    modules = {p.stem if p.suffix else p.name for p in package.iterdir()} - {"__pycache__"}
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative import inside helpers
                depth = len(path.relative_to(package).parts) - 1
                parts = module.split(".") if module else [a.name for a in node.names]
                if node.level > depth:
                    found.add(parts[0] if parts[0] in modules else "__init__")
            elif module == "helpers":  # from helpers import training
                found |= {a.name if a.name in modules else "__init__" for a in node.names}
            elif module.startswith("helpers."):
                found.add(module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("helpers.")}
    return found - {path.relative_to(package).parts[0].removesuffix(".py")}


def test_the_layer_table_names_every_module_and_nothing_else():
    tops = {_layer_name(path) for path in HELPERS_MODULES}
    assert tops == set(LAYER), (
        f"modules without a layer: {sorted(tops - set(LAYER))}; "
        f"layers without a module: {sorted(set(LAYER) - tops)}"
    )


def test_the_import_reader_sees_every_spelling(tmp_path):
    package = tmp_path / "helpers"
    (package / "sub").mkdir(parents=True)
    code = (
        "import helpers.plots\nfrom helpers import data, widgets\nfrom helpers.training import x\n"
        "from .. import attention\nfrom ..encodings import y\nfrom . import sibling\n"
        "from .own import z\nimport numpy\n"
    )
    (package / "sub" / "mod.py").write_text(code)
    for name in ("plots", "data", "widgets", "training", "attention", "encodings"):
        (package / f"{name}.py").write_text("")
    found = _helpers_imports(package / "sub" / "mod.py", package)
    assert found == {"plots", "data", "widgets", "training", "attention", "encodings"}
    (package / "top.py").write_text("from . import seed_everything\nfrom helpers import get_device")
    assert _helpers_imports(package / "top.py", package) == {"__init__"}


@pytest.mark.parametrize("path", HELPERS_MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_lower_layers_never_import_higher_ones(path):
    top = _layer_name(path)
    assert top in LAYER, f"{path.name}: {top} has no layer in LAYER (give it one)"
    imported = _helpers_imports(path)
    unknown = imported - set(LAYER)
    assert not unknown, f"{path.name} imports {unknown}, which are not modules of helpers"
    higher = {m for m in imported if LAYER[m] > LAYER[top]}
    assert not higher, f"{path.name} ({top}) imports higher layers {higher}"


# Module sizes (issue 37): no module of helpers or scripts over about 500 lines unless it is one
# idea, named here with the reason; a module that grows past the limit fails until it is split or
# given its reason.
MODULE_LINES = 550
ONE_IDEA = {
    "scripts/course.py": "every part the manifest generates or checks, one short function each",
    "scripts/build_assignments.py": "building one nbgrader assignment per lesson (cases moved out)",
    "helpers/exercises/per_layer.py": "the three checkers of notebook 18, like one module a lesson",
}


@pytest.mark.parametrize(
    "path",
    sorted([*(ROOT / "helpers").rglob("*.py"), *(ROOT / "scripts").rglob("*.py")]),
    ids=lambda p: str(p.relative_to(ROOT)),
)
def test_no_module_is_long_unless_it_is_one_idea(path):
    lines = len(path.read_text(encoding="utf-8").splitlines())
    name = str(path.relative_to(ROOT))
    if name in ONE_IDEA:
        assert lines > 500, f"{name} is {lines} lines now: drop it from ONE_IDEA"
        return
    assert lines <= MODULE_LINES, f"{name}: {lines} lines; split it along its seams (issue 37)"
