"""Lesson 15's stretching experiment on seeds the notebook does not print (issue 41).

Notebook 15 trains one rotary model (seed 0) on the chain x_t = (x_{t-1} + x_{t-2}) mod 16 at
L = 32, applies each scaling method (plain, linear, NTK, YaRN) at 2L and 4L, fine-tunes 30 steps
at 4L, and asserts its claims on that seed; its optional part reads this script's results and
asserts how many held-out seeds each claim holds on. To run exactly the notebook's code, this
script executes the notebook's own code cells, from the set-up to the YaRN-variants check, with
one change: the line ``SEED = 0`` becomes ``SEED = <seed>``; the cells' top-level ``assert``
lines are dropped and the ``claims`` of the two claim cells are recorded instead. Plots go to
matplotlib's Agg backend. One JSON line per seed goes to ``benchmarks/lesson15_seeds.jsonl``.

    python benchmarks/lesson15_seeds.py --seeds 1 2 3 4        # appends; a seed in the file is skipped
    python benchmarks/lesson15_seeds.py --report               # the table of what is in the file
    python benchmarks/lesson15_seeds.py --report --check       # and assert the shares the lesson states

One thread, one seed after another (the machine is shared): about 20 s of CPU per seed. The
recorded ``claims`` are those of the notebook as it was when the seeds were run (2026-11-27,
before two claims were restated); the notebook's optional cell re-checks its own statements
from the recorded accuracies.
Results and what they show: ``benchmarks/RESULTS.md`` ("Notebook 15: the stretching experiment
on held-out seeds").
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import matplotlib  # noqa: E402

matplotlib.use("Agg")

import nbformat  # noqa: E402

NOTEBOOK = ROOT / "notebooks" / "15_long_context.ipynb"
RESULTS = ROOT / "benchmarks" / "lesson15_seeds.jsonl"
CLAIM_CELLS = ("nb15-24", "8fdf8aba")  # the experiment's claims, the YaRN variants' claims
LAST_CELL = "8fdf8aba"
NOTEBOOK_SEED = 0  # printed by notebook 15; every other seed is held out
HELD_OUT = (1, 2, 3, 4)  # measured so far (see RESULTS.md); more with --seeds 5 6 ...
# claim (as the notebook first wrote it, recorded per seed) -> on how many held-out seeds it holds;
# notebook 15 restates the two that fail on some seeds and checks its statements on these rows
STATED: dict[str, int] = {
    "untuned, NTK beats plain extrapolation beyond L at 4L by > 0.04": 4,
    "untuned, NTK is the best of the four beyond L at 2L and 4L, by > 0.02": 4,
    "untuned, YaRN is below plain beyond L at 2L and 4L (by > 0.05 at 4L)": 2,
    "untuned, YaRN loses targets inside L at 4L (< 0.9, plain >= 0.9)": 4,
    "untuned, linear interpolation breaks even inside L (< 0.6, plain >= 0.9)": 4,
    "after 30 steps at 4L, plain, NTK and YaRN reach >= 0.95 beyond L": 3,
    "after 30 steps at 4L, linear stays > 0.15 below plain": 4,
    "without the temperature, YaRN's accuracy beyond L changes by < 0.06": 4,
    "YaRN as coded: beyond L above interpolation by > 0.1": 4,
    "with the paper's ramp, YaRN breaks inside L like interpolation (< 0.6)": 4,
    "with the paper's ramp, YaRN falls below 0.5 beyond L, as interpolation does": 4,
}


def notebook_code(seed: int, path: pathlib.Path = NOTEBOOK) -> list[tuple[str, str]]:
    """(cell id, source) of the notebook's code cells up to LAST_CELL, for ``seed``."""
    notebook = nbformat.read(path, as_version=4)
    cells = []
    for cell in notebook.cells:
        if cell.cell_type != "code":
            continue
        lines = cell.source.splitlines()
        if lines and lines[0] == "# NBVAL_IGNORE_OUTPUT":
            continue  # prints only
        if any(line == "SEED = 0" or line.startswith("SEED = 0  #") for line in lines):
            lines = [f"SEED = {seed}" if line.startswith("SEED = 0") else line for line in lines]
        lines = [line for line in lines if not line.startswith("assert ")]
        cells.append((cell.id, "\n".join(lines)))
        if cell.id == LAST_CELL:
            return cells
    raise ValueError(f"{NOTEBOOK.name} has no cell {LAST_CELL!r}")


def measure(seed: int, path: pathlib.Path = NOTEBOOK) -> dict:
    """Run the notebook's code for one seed; its accuracies and the truth of every claim."""
    sources = notebook_code(seed, path)
    if not any("SEED = " + str(seed) in source for _, source in sources):
        raise ValueError("the notebook has no line 'SEED = 0' to change")
    start = time.process_time()
    names: dict = {"__name__": "__lesson15__"}
    claims: dict[str, bool] = {}
    for cell_id, source in sources:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(source, f"{NOTEBOOK.name}:{cell_id}", "exec"), names)  # noqa: S102
        if cell_id in CLAIM_CELLS:
            claims.update({claim: bool(holds) for claim, holds in names["claims"].items()})
    results = {
        f"{scale}L {method} {'tuned' if tuned else 'as is'}": list(accuracies)
        for (scale, method, tuned), accuracies in names["results"].items()
    }
    variants = {f"{scale}L {name}": list(acc) for (scale, name), acc in names["variants"].items()}
    return {
        "seed": seed,
        "held_out": seed != NOTEBOOK_SEED,
        "results": results,  # [accuracy inside L, accuracy beyond L]
        "variants": variants,
        "claims": claims,
        "cpu_seconds": round(time.process_time() - start, 1),
    }


def load(path: pathlib.Path = RESULTS) -> dict[int, dict]:
    rows = {}
    if path.exists():
        for line in path.read_text().splitlines():
            row = json.loads(line)
            rows[row["seed"]] = row
    return rows


def report(rows: dict[int, dict]) -> str:
    held = [rows[s] for s in sorted(rows) if rows[s]["held_out"]]
    lines = [
        f"held-out seeds: {', '.join(str(r['seed']) for r in held)} ({len(held)})",
        "",
        "| claim (notebook 15) | seed 0 | held-out seeds it holds on | fails on |",
        "|---|---|---|---|",
    ]
    for claim in next(iter(rows.values()))["claims"]:
        own = rows[NOTEBOOK_SEED]["claims"][claim] if NOTEBOOK_SEED in rows else "-"
        holds = [r["seed"] for r in held if r["claims"][claim]]
        fails = [str(r["seed"]) for r in held if not r["claims"][claim]]
        lines.append(
            f"| {claim} | {own} | {len(holds)} of {len(held)} | {', '.join(fails) or '-'} |"
        )
    columns = list(next(iter(rows.values()))["results"])
    lines += ["", "| seed | " + " | ".join(columns) + " |", "|---" * (len(columns) + 1) + "|"]
    for seed in sorted(rows):
        cells = " | ".join(f"{a[0]:.2f} / {a[1]:.2f}" for a in rows[seed]["results"].values())
        lines.append(f"| {seed} | {cells} |")
    lines.append("")
    lines.append("(each cell: accuracy inside L / beyond L)")
    cpu = [r["cpu_seconds"] for r in rows.values()]
    lines.append(f"CPU per seed: {min(cpu):.0f}-{max(cpu):.0f} s")
    return "\n".join(lines)


def check(rows: dict[int, dict]) -> dict[str, bool]:
    """The lesson's statements about the seeds, true or false on the results file."""
    held = [rows[s] for s in HELD_OUT if s in rows]
    out = {f"all {len(HELD_OUT)} held-out seeds measured": len(held) == len(HELD_OUT)}
    out["every recorded claim holds on seed 0"] = NOTEBOOK_SEED in rows and all(
        rows[NOTEBOOK_SEED]["claims"].values()
    )
    for claim, count in STATED.items():
        got = sum(r["claims"][claim] for r in held)
        out[f"{claim}: {count} of {len(HELD_OUT)} held-out seeds"] = got == count
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[NOTEBOOK_SEED, *HELD_OUT])
    parser.add_argument("--out", type=pathlib.Path, default=RESULTS)
    parser.add_argument(
        "--notebook", type=pathlib.Path, default=NOTEBOOK, help="a copy of notebook 15 to run"
    )
    parser.add_argument("--report", action="store_true", help="print the results file's table")
    parser.add_argument("--check", action="store_true", help="also check the lesson's claims")
    args = parser.parse_args()
    import torch

    torch.set_num_threads(1)
    if not args.report:
        done = load(args.out)
        for seed in args.seeds:
            if seed in done:
                continue
            row = measure(seed, args.notebook)
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(f"seed {seed}: {row['cpu_seconds']} s CPU", flush=True)
    rows = load(args.out)
    print(report(rows))
    if args.check:
        claims = check(rows)
        for claim, holds in claims.items():
            print(f"{claim}: {holds}")
        if not all(claims.values()):
            raise SystemExit(1)


if __name__ == "__main__":
    main()
