"""Lesson 16's partial-rotation experiment on seeds the notebook does not print (issue 39).

Notebook 16 (cells 24-26) trains lesson 12's model on lesson 12's task with three rotary
variants per head of four pairs (full rotary, GPT-NeoX style on half the head, p-RoPE on half the
pairs) on training seed 0 only (seeds 0 and 1 until issue 41). This script runs the notebook's own code (``build_model``,
``set_frequencies``, ``train_on_task``, ``evaluate`` from ``helpers.extrapolation``) on more
seeds, plus two ablations of the pair that the lesson blames, and writes one JSON line per
trained model as soon as it is done, so a long run can be read (and resumed) while it goes.

Variants (omega of the four pairs of every head; 0 = the pair is not rotated):

- ``full`` 1, 0.1, 0.01, 0.001; ``GPT-NeoX`` 1, 0.01, 0, 0; ``p-RoPE`` 1, 0.1, 0, 0 (the notebook's);
- ``full, no 0.1`` 1, 0, 0.01, 0.001: full rotary without its omega = 0.1 pair;
- ``p-RoPE, 0.05`` 1, 0.05, 0, 0: p-RoPE with its second pair slowed to omega = 0.05, which
  turns 1.55 rad within L = 32 and 3.15 rad (half a turn) at 2L: unseen angles, but no full turn.

For every model the line holds: the accuracy per range of ``RANGES`` on the fixed test set
(512 sequences of 128 tokens, generator seed 12345); the same with every query limited to its
last ``w`` keys (``window_mask``) for several ``w``, pooled over ``2L <= t < 4L``; the accuracy
per target position; and the ranges again with each slow rotated pair switched off after
training (``set_frequencies`` with that omega at 0), which shows which pair a model relies on.

Usage::

    python benchmarks/lesson16_seeds.py --out benchmarks/lesson16_seeds.jsonl \\
        --variants GPT-NeoX full p-RoPE --seeds $(seq 2 17)
    python benchmarks/lesson16_seeds.py --summary benchmarks/lesson16_seeds.jsonl

A (variant, seed) already in ``--out`` is skipped. One thread, seeds one after another:
on a shared 2-core machine one training run takes about 9 s of CPU. Results measured on the
course's machine and what they show: ``benchmarks/RESULTS.md`` ("Notebook 16: partial
rotation over held-out seeds").
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

import torch

from helpers.encodings import RotaryPositionalAttention
from helpers.extrapolation import (
    RANGES,
    TRAIN_LENGTH,
    build_model,
    evaluate,
    evaluation_tokens,
    train_on_task,
)

VARIANTS = {
    "full": [1.0, 0.1, 0.01, 0.001],
    "GPT-NeoX": [1.0, 0.01, 0.0, 0.0],
    "p-RoPE": [1.0, 0.1, 0.0, 0.0],
    "full, no 0.1": [1.0, 0.0, 0.01, 0.001],
    "p-RoPE, 0.05": [1.0, 0.05, 0.0, 0.0],
}
NOTEBOOK_SEEDS = (0, 1)  # notebook 16 printed both until issue 41 (now seed 0 only); held out: 2-17
WINDOWS = (32, 40, 44, 46, 48, 56, 62, 64, 66, 80, 96, 128)  # keys each query may see
FAR = "2L <= t < 4L"


def set_omega(model: torch.nn.Module, omega: list[float]) -> None:
    """Give every rotary attention of ``model`` the frequencies ``omega`` (as notebook 16)."""
    for module in model.modules():
        if isinstance(module, RotaryPositionalAttention):
            module.set_frequencies(torch.tensor(omega, dtype=torch.float32))


def run_one(
    name: str, seed: int, tokens: torch.Tensor, windows=WINDOWS, save_dir: Path | None = None
) -> dict:
    """Notebook 16's cell 24 for one (variant, seed), then the probes described above."""
    omega = VARIANTS[name]
    torch.manual_seed(seed)  # the same initial weights for every variant of a seed
    model = build_model("rotary")
    set_omega(model, omega)
    wall, cpu = time.perf_counter(), time.process_time()
    train_on_task(model, seed)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    if save_dir is not None:  # for later probes without training again
        save_dir.mkdir(parents=True, exist_ok=True)
        torch.save(model.state_dict(), save_dir / f"{name.replace(' ', '')}_{seed}.pt")
    by_position, ranges = evaluate(model, tokens)
    windowed = {w: evaluate(model, tokens, window=w)[1][FAR] for w in windows}
    switched_off = {}
    for pair, w in enumerate(omega):
        if pair == 0 or w == 0:
            continue
        set_omega(model, [0.0 if k == pair else v for k, v in enumerate(omega)])
        switched_off[f"pair {pair} (omega {w})"] = evaluate(model, tokens)[1]
        set_omega(model, omega)
    return {
        "variant": name,
        "omega": omega,
        "seed": seed,
        "held_out": seed not in NOTEBOOK_SEEDS,
        "ranges": ranges,
        "far_by_window": windowed,
        "switched_off": switched_off,
        "by_position": [None if v != v else round(float(v), 4) for v in by_position],
        "train_wall_s": round(wall, 1),
        "train_cpu_s": round(cpu, 1),
    }


PROBE_WINDOWS = (8, 16, 24, 32, 48, 64, 128)


def probe(save_dir: Path, out: Path, variants: list[str], seeds: list[int]) -> None:
    """Reload saved models and measure accuracy per range with each query limited to its last
    ``w`` keys, for every ``w`` of ``PROBE_WINDOWS``: if a model fails past 2L because of the
    offsets it never saw, a window of <= L keys restores it; if it fails because every extra key
    takes a little of the attention, accuracy falls as the window grows, even below L."""
    tokens = evaluation_tokens()
    for name in variants:
        for seed in seeds:
            path = save_dir / f"{name.replace(' ', '')}_{seed}.pt"
            if not path.exists():
                continue
            model = build_model("rotary")
            set_omega(model, VARIANTS[name])
            model.load_state_dict(torch.load(path))
            model.eval()
            by_window = {w: evaluate(model, tokens, window=w)[1] for w in PROBE_WINDOWS}
            row = {"variant": name, "seed": seed, "by_window": by_window}
            with out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            print(
                f"{name:<13} seed {seed:>2}, past 2L by window: "
                + ", ".join(f"{w} {r[FAR]:.2f}" for w, r in by_window.items()),
                flush=True,
            )


def summary(path: Path) -> None:
    """Print per-variant tables (seed by seed) and the share / median / range over held-out seeds."""
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    for name in VARIANTS:
        mine = sorted((r for r in rows if r["variant"] == name), key=lambda r: r["seed"])
        if not mine:
            continue
        print(f"\n{name}: omega {mine[0]['omega']}")
        print("seed  " + "  ".join(f"{r:>12}" for r in RANGES) + "  far, window 32")
        for r in mine:
            tag = "" if r["held_out"] else "  (notebook)"
            cells = "  ".join(f"{r['ranges'][k]:12.2f}" for k in RANGES)
            print(f"{r['seed']:>4}  {cells}  {r['far_by_window']['32']:14.2f}{tag}")
        held = [r for r in mine if r["held_out"]]
        if held:
            far = [r["ranges"][FAR] for r in held]
            inside = [r["ranges"]["8 <= t < L"] for r in held]
            print(
                f"held-out seeds {[r['seed'] for r in held]}: past 2L median {statistics.median(far):.2f} "
                f"(range {min(far):.2f}-{max(far):.2f}), above 0.9 on {sum(a > 0.9 for a in far)} "
                f"of {len(far)}; inside L {min(inside):.2f}-{max(inside):.2f}"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", type=Path, default=Path("benchmarks/lesson16_seeds.jsonl"))
    parser.add_argument("--variants", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    parser.add_argument("--seeds", nargs="+", type=int, default=list(range(2, 18)))
    parser.add_argument(
        "--windows", nargs="+", type=int, default=list(WINDOWS), help="windows to probe (keys)"
    )
    parser.add_argument("--save-dir", type=Path, help="save each trained model's weights here")
    parser.add_argument(
        "--probe", type=Path, help="probe the models saved in --save-dir, append to this file"
    )
    parser.add_argument("--summary", type=Path, help="print the tables of a results file and stop")
    args = parser.parse_args()
    if args.summary:
        summary(args.summary)
        return
    torch.set_num_threads(1)
    if args.probe:
        probe(args.save_dir, args.probe, args.variants, args.seeds)
        return
    tokens = evaluation_tokens()
    assert tokens.shape[1] == 4 * TRAIN_LENGTH
    done = set()
    if args.out.exists():
        for line in args.out.read_text().splitlines():
            if line.strip():
                r = json.loads(line)
                done.add((r["variant"], r["seed"]))
    for seed in args.seeds:
        for name in args.variants:
            if (name, seed) in done:
                continue
            row = run_one(name, seed, tokens, args.windows, args.save_dir)
            with args.out.open("a") as f:
                f.write(json.dumps(row) + "\n")
            r = row["ranges"]
            print(
                f"{name:<13} seed {seed:>2}: "
                + ", ".join(f"{k} {v:.2f}" for k, v in r.items())
                + f" | far, window 32: {row['far_by_window'][32]:.2f}"
                + f" | {row['train_cpu_s']} s CPU",
                flush=True,
            )


if __name__ == "__main__":
    main()
