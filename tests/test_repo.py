"""The repository's promises: pins that do not drift, commands the README gives, package layering."""

from __future__ import annotations

import ast
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
    assert pins["torch"] == "2.13.0"
    for name in ["jupyterlab", "numpy", "matplotlib", "seaborn", "nbval", "pytest"]:
        assert re.fullmatch(r"\d+(\.\d+)+", pins[name]), f"{name} not pinned exactly"
    assert re.search(r"^-e \.$", text, re.MULTILINE), "requirements.txt must install helpers (-e .)"


def test_read_pins_accepts_a_str_path_like_a_path():
    path = ROOT / "requirements.txt"
    assert check_env.read_pins(str(path)) == check_env.read_pins(path)
    assert check_env.read_pins(str(path))["torch"] == "2.13.0"


def test_readme_gives_the_two_commands_that_ci_runs():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text()
    assert "<!-- install-and-open -->" in readme and "<!-- test-command -->" in readme
    install = readme.split("<!-- install-and-open -->")[1].split("```")[1]
    assert "pip install -r requirements.txt" in install and "jupyter lab" in install
    assert readme.split("<!-- test-command -->")[1].split("```")[1].strip() == "bash\npytest"
    # .ci/run reads both commands from the README instead of repeating them.
    assert "readme_command install-and-open" in ci and "readme_command test-command" in ci


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


# Layering: encodings -> attention -> transformer -> training (data, plots, exercises beside).
# The drawing modules (plots, and figure_record and diagram, which it re-exports) sit at the
# bottom beside encodings: they draw what they are given and import no model layer.
LAYER = {
    "encodings": 0,
    "attention": 1,
    "transformer": 2,
    "training": 3,
    "plots": 0,
    "figure_record": 0,
    "diagram": 0,
}


def _helpers_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level:  # relative import inside helpers
                depth = len(path.relative_to(ROOT / "helpers").parts) - 1
                parts = module.split(".") if module else [a.name for a in node.names]
                if node.level > depth:
                    found.add(parts[0])
            elif module.startswith("helpers."):
                found.add(module.split(".")[1])
        elif isinstance(node, ast.Import):
            found |= {a.name.split(".")[1] for a in node.names if a.name.startswith("helpers.")}
    return found


@pytest.mark.parametrize(
    "path", sorted((ROOT / "helpers").rglob("*.py")), ids=lambda p: str(p.relative_to(ROOT))
)
def test_lower_layers_never_import_higher_ones(path):
    top = path.relative_to(ROOT / "helpers").parts[0].removesuffix(".py")
    if top not in LAYER:
        return
    higher = {m for m in _helpers_imports(path) if LAYER.get(m, -1) > LAYER[top]}
    assert not higher, f"{path.name} ({top}) imports higher layers {higher}"
