"""Mutation testing of the unit tests: how many small wrong edits of ``helpers`` do they catch?

    pip install -e ".[dev]"                     # mutmut, once
    python scripts/mutation.py                  # run (tens of minutes on 2 cores), then report
    python scripts/mutation.py --report         # report the last run again, run nothing
    python scripts/mutation.py 'helpers.data.*'  # only the mutants of one part (or function)

mutmut (configured in pyproject.toml, ``[tool.mutmut]``) copies ``helpers`` to ``mutants/``,
makes thousands of one-token edits ("mutants") to the lines the unit tests execute, in
``helpers/encodings/``, ``attention.py``, ``transformer/``, ``training.py`` and ``data.py``, and
runs the unit tests that cover each edit (no notebooks). A mutant is *killed* when a test fails.
Every run starts from an empty ``mutants/``: mutmut 3.8.1 re-measures coverage on the mutated
copies it left there, which silently drops most mutants (4,209 became 1,226 here).

The report prints the score over all mutants, and over the mutants that change behaviour: a
mutant whose only change is the text of an error message (a string inside a ``raise``, or the
argument name given to a ``require_*`` helper) is counted apart, since tests of messages check
that they name the argument, not every word. It then lists the behaviour-changing survivors with
their diffs: each is a missing test or an equivalent edit (listed in tests/MUTATION.md).
"""

from __future__ import annotations

import argparse
import ast
import copy
import difflib
import os
import shutil
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path
from typing import NamedTuple

ROOT = Path(__file__).resolve().parent.parent

# Statuses (mutmut's names) that count as caught: a failing test, a test run that never ends.
CAUGHT = {"killed", "timeout", "caught by type check"}


class Mutant(NamedTuple):
    name: str
    path: str
    status: str
    message_only: bool  # the edit only changes the text of an error message
    diff: str


def run_mutmut(max_children: int, mutant_names: list[str]) -> float:
    """``mutmut run`` with one thread per child (forked children deadlock in OpenMP otherwise)."""
    mutmut = shutil.which("mutmut", path=str(Path(sys.executable).parent)) or shutil.which("mutmut")
    if mutmut is None:
        sys.exit('mutmut is not installed: pip install -e ".[dev]"')
    env = os.environ | {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env.pop("PYTHONPATH", None)  # the tests must import helpers from mutants/, not from here
    start = time.monotonic()
    command = [mutmut, "run", "--max-children", str(max_children), *mutant_names]
    result = subprocess.run(command, cwd=ROOT, env=env)
    if result.returncode != 0:
        sys.exit(f"mutmut run failed with exit code {result.returncode}")
    return time.monotonic() - start


def _call_name(node: ast.Call) -> str:
    func = node.func
    return func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")


class _HideMessages(ast.NodeTransformer):
    """Blank out what only ends up in an error message: the arguments of the exception raised,
    and the argument name passed first to a ``require_*`` / ``_require_*`` validation helper."""

    def visit_Raise(self, node: ast.Raise) -> ast.Raise:
        if isinstance(node.exc, ast.Call):
            node.exc.args, node.exc.keywords = [], []
        return node

    def visit_Call(self, node: ast.Call) -> ast.Call:
        self.generic_visit(node)
        name = _call_name(node)
        if name.startswith(("require_", "_require_")) and node.args:
            # the argument's name, and for require_same_dtype the owner's ("the module's
            # weights"): both are only printed
            places = (0, 2) if name == "require_same_dtype" else (0,)
            for place in places:
                if place < len(node.args) and _is_text(node.args[place]):
                    node.args[place] = ast.Constant("<name>")
        return node


def _is_text(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant) and (node.value is None or isinstance(node.value, str))


def _without_messages(function: ast.FunctionDef) -> str:
    function = copy.deepcopy(function)
    function.name = "f"
    return ast.dump(_HideMessages().visit(function))


def _message_values(function: ast.FunctionDef) -> Counter:
    """The expressions formatted into exception messages (``{tuple(x.shape)}``...). An edit
    that turns one into ``{tuple(None)}`` raises a different exception: not message-only."""
    values = Counter()
    for node in ast.walk(function):
        if isinstance(node, ast.Raise) and node.exc is not None:
            for part in ast.walk(node.exc):
                if isinstance(part, ast.FormattedValue):
                    values[ast.dump(part.value)] += 1
    return values


def message_only(original: ast.FunctionDef, mutated: ast.FunctionDef) -> bool:
    """True if ``mutated`` differs from ``original`` only in the text of error messages."""
    if _without_messages(original) != _without_messages(mutated):
        return False
    return not (_message_values(mutated) - _message_values(original))


def _generated_functions(path: Path) -> tuple[list[str], dict[str, ast.FunctionDef]]:
    """The lines of ``mutants/<path>`` and its functions (methods included) by generated name."""
    source = (Path("mutants") / path).read_text()
    functions = {}
    for node in ast.parse(source).body:
        body = node.body if isinstance(node, ast.ClassDef) else [node]
        functions |= {f.name: f for f in body if isinstance(f, ast.FunctionDef)}
    return source.splitlines(), functions


def _diff(lines: list[str], original: ast.FunctionDef, mutated: ast.FunctionDef) -> str:
    """A unified diff of two functions of the generated file ``lines``, the edit only."""
    before = lines[original.lineno - 1 : original.end_lineno]
    after = lines[mutated.lineno - 1 : mutated.end_lineno]
    after[0] = after[0].replace(mutated.name, original.name, 1)  # the generated names differ
    return "\n".join(list(difflib.unified_diff(before, after, lineterm="", n=1))[2:])


def collect() -> list[Mutant]:
    """Every mutant of the last run, its status and whether it only changes a message."""
    from mutmut.mutation.data import SourceFileMutationData
    from mutmut.stats import status_by_exit_code
    from mutmut.utils.file_utils import walk_mutatable_files

    mutants = []
    for path in walk_mutatable_files():
        data = SourceFileMutationData(path=path)
        data.load()
        if not data.exit_code_by_key:
            continue
        lines, functions = _generated_functions(path)
        for name, exit_code in data.exit_code_by_key.items():
            generated = name.rpartition(".")[2]  # x_f__mutmut_3 or xǁClassǁf__mutmut_3
            original_name = generated.rpartition("__mutmut_")[0] + "__mutmut_orig"
            original, mutated = functions[original_name], functions[generated]
            only_message = message_only(original, mutated)
            status = status_by_exit_code[exit_code]
            diff = _diff(lines, original, mutated)
            mutants.append(Mutant(name, str(path), status, only_message, diff))
    return mutants


def percent(part: int, whole: int) -> str:
    return f"{100 * part / whole:.1f} %" if whole else "n/a"


def report(mutants: list[Mutant], show_diffs: bool) -> list[Mutant]:
    """Print the scores and the behaviour-changing survivors; return those survivors."""
    statuses = Counter(m.status for m in mutants)
    behaviour = [m for m in mutants if not m.message_only]
    caught_all = sum(m.status in CAUGHT for m in mutants)
    caught_behaviour = sum(m.status in CAUGHT for m in behaviour)
    print("\nstatuses: " + ", ".join(f"{s} {n}" for s, n in statuses.most_common()))
    if statuses["not checked"]:
        print(f"WARNING: {statuses['not checked']} mutants not checked yet (run interrupted?)")
    print(f"all mutants:                {caught_all} / {len(mutants)} killed", end=" ")
    print(f"({percent(caught_all, len(mutants))})")
    print(f"outside error-message text: {caught_behaviour} / {len(behaviour)} killed", end=" ")
    print(f"({percent(caught_behaviour, len(behaviour))})")
    print(f"({len(mutants) - len(behaviour)} mutants only change the text of an error message)")
    survivors = [m for m in behaviour if m.status not in CAUGHT | {"not checked"}]
    per_file = Counter(m.path for m in survivors)
    print(f"\n{len(survivors)} behaviour-changing survivors:", end=" ")
    print(", ".join(f"{path} {n}" for path, n in sorted(per_file.items())))
    for m in sorted(survivors):
        print(f"\n--- {m.name} ({m.status})\n{m.diff}" if show_diffs else f"  {m.name}")
    return survivors


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "mutants", nargs="*", help="only (re-)test these mutants; patterns such as 'helpers.data.*'"
    )
    parser.add_argument("--report", action="store_true", help="only report the last run")
    parser.add_argument(
        "--max-children", type=int, default=os.cpu_count() or 2, help="parallel test runs"
    )
    parser.add_argument("--no-diffs", action="store_true", help="list survivors by name only")
    args = parser.parse_args()
    os.chdir(ROOT)
    sys.path.insert(0, str(ROOT))  # mutmut's modules read the configuration relative to here

    if not args.report:
        shutil.rmtree("mutants", ignore_errors=True)
        elapsed = run_mutmut(args.max_children, args.mutants)
        print(f"\nmutmut run took {elapsed / 60:.1f} min with {args.max_children} children")
    report(collect(), show_diffs=not args.no_diffs)


if __name__ == "__main__":
    main()
