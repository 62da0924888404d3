"""scripts/execute_notebooks.py: stable bytes on re-execution, and notebooks outside the repo."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location(
    "execute_notebooks", ROOT / "scripts" / "execute_notebooks.py"
)
execute_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(execute_notebooks)

# Three prints flushed apart reach the kernel's client as three stream messages.
SPLIT_PRINTS = "import time\nfor i in range(3):\n    print(i, flush=True)\n    time.sleep(0.2)"


def _tiny_notebook(path: Path) -> Path:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [
        nbformat.v4.new_code_cell(SPLIT_PRINTS),
        nbformat.v4.new_code_cell("import sys\nprint('to stderr', file=sys.stderr)\nprint('out')"),
    ]
    nbformat.write(notebook, path)
    return path


def test_merge_streams_joins_only_consecutive_outputs_of_one_name():
    new = nbformat.v4.new_output
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [
        new("stream", name="stdout", text="a\n"),
        new("stream", name="stdout", text="b\n"),
        new("stream", name="stderr", text="warn\n"),
        new("stream", name="stdout", text="c\n"),
        new("execute_result", data={"text/plain": "1"}, execution_count=1),
        new("stream", name="stdout", text="d\n"),
    ]
    notebook = nbformat.v4.new_notebook(cells=[cell])
    execute_notebooks.merge_streams(notebook)
    kinds = [(o.output_type, o.get("name"), o.get("text")) for o in notebook.cells[0].outputs]
    assert kinds == [
        ("stream", "stdout", "a\nb\n"),
        ("stream", "stderr", "warn\n"),
        ("stream", "stdout", "c\n"),
        ("execute_result", None, None),
        ("stream", "stdout", "d\n"),
    ]


def test_renumber_widget_ids_is_consistent_and_deterministic():
    old_a, old_b = "a" * 32, "b" * 32
    notebook = nbformat.v4.new_notebook()
    notebook.metadata["widgets"] = {
        "application/vnd.jupyter.widget-state+json": {
            "state": {old_a: {"state": {"child": f"IPY_MODEL_{old_b}"}}, old_b: {"state": {}}},
            "version_major": 2,
            "version_minor": 0,
        }
    }
    view = {"model_id": old_a, "version_major": 2, "version_minor": 0}
    cell = nbformat.v4.new_code_cell("")
    cell.outputs = [
        nbformat.v4.new_output(
            "display_data",
            data={"application/vnd.jupyter.widget-view+json": view, "text/plain": "VBox()"},
        )
    ]
    notebook.cells = [cell]
    renumbered = execute_notebooks.renumber_widget_ids(notebook)
    state = renumbered.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    new_a, new_b = list(state)
    assert {new_a, new_b}.isdisjoint({old_a, old_b})
    assert state[new_a]["state"]["child"] == f"IPY_MODEL_{new_b}"
    shown = renumbered.cells[0].outputs[0].data["application/vnd.jupyter.widget-view+json"]
    assert shown["model_id"] == new_a
    assert execute_notebooks.renumber_widget_ids(notebook) == renumbered


def test_reexecuting_a_notebook_outside_the_repo_gives_identical_bytes(tmp_path, capsys):
    path = _tiny_notebook(tmp_path / "tiny.ipynb")
    assert execute_notebooks.main([str(path)]) == 0  # used to crash: not under the repository
    first = path.read_bytes()
    assert execute_notebooks.main([str(path)]) == 0
    assert path.read_bytes() == first, "re-executing an unchanged notebook changed the file"
    assert str(path) in capsys.readouterr().out

    outputs = nbformat.read(path, as_version=4).cells[0].outputs
    assert [(o.output_type, o.name, o.text) for o in outputs] == [("stream", "stdout", "0\n1\n2\n")]
