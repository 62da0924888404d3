"""Notebook 18's experiment on held-out seeds: does every claim the notebook asserts on seed 0
hold on seeds 1-5?

    python benchmarks/per_layer_seeds.py            # seeds 1 2 3 4 5, every scheme
    python benchmarks/per_layer_seeds.py --seeds 6 7

Prints one row per scheme and seed (accuracy per range of lesson 12's RANGES) and checks the
notebook's claims on them; exits with status 1 if one fails. Results: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np
import torch

import helpers
from helpers.extrapolation import EVAL_LENGTH, evaluate_many, evaluation_tokens, train_many
from helpers.per_layer_experiment import PER_LAYER_SCHEMES, build_per_layer_model

INSIDE, NEAR, FAR = "8 <= t < L", "L <= t < 2L", "2L <= t < 4L"


def chunk_start_accuracy(by_position: np.ndarray) -> tuple[float, float]:
    """Accuracy of the answers whose query opens a chunk of 8 (t % 8 == 1) and of the others,
    from t = 8 on: Llama 4's pair cannot see the token before a chunk start."""
    t = np.arange(EVAL_LENGTH)
    after_start, others = (t >= 8) & (t % 8 == 1), (t >= 8) & (t % 8 != 1)
    return float(np.nanmean(by_position[after_start])), float(np.nanmean(by_position[others]))


def claims(results: dict, by_position: dict) -> list[str]:
    """The notebook's claims, checked on ``results[(scheme, seed)] = {range: accuracy}`` and
    ``by_position[(scheme, seed)]`` (accuracy per position)."""
    failed = []
    for (scheme, seed), acc in results.items():
        if scheme == "rotary" and not acc[FAR] < 0.5 * acc[INSIDE]:
            failed.append(f"rotary seed {seed}: beyond 2L keeps more than half ({acc})")
        if scheme != "rotary" and not acc[FAR] >= acc[INSIDE] - 0.05:
            failed.append(f"{scheme} seed {seed}: loses more than 5 points beyond 2L ({acc})")
        if scheme == "llama4":
            other = results[("llama4-no-temperature", seed)]
            if abs(acc[FAR] - other[FAR]) > 0.05:
                failed.append(f"temperature changes seed {seed} by more than 5 points")
            start, rest = chunk_start_accuracy(by_position[(scheme, seed)])
            if not (start < 0.4 and rest >= 0.95):
                failed.append(
                    f"llama4 seed {seed}: after a chunk start {start:.3f}, others {rest:.3f}"
                )
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4, 5])
    args = parser.parse_args()
    torch.set_num_threads(1)
    start = time.process_time()
    jobs = {}
    for scheme in PER_LAYER_SCHEMES:
        for seed in args.seeds:
            helpers.seed_everything(seed)
            jobs[(scheme, seed)] = (build_per_layer_model(scheme), seed)
    models = train_many(jobs)
    evaluated = evaluate_many(models, evaluation_tokens())
    results = {k: r for k, (_, r) in evaluated.items()}
    by_position = {k: p for k, (p, _) in evaluated.items()}
    print(f"| scheme | seed | {INSIDE} | {NEAR} | {FAR} |\n|---|---|---|---|---|")
    for (scheme, seed), acc in results.items():
        print(f"| {scheme} | {seed} | {acc[INSIDE]:.3f} | {acc[NEAR]:.3f} | {acc[FAR]:.3f} |")
    for (scheme, seed), positions in by_position.items():
        if scheme.startswith("llama4"):
            start_acc, rest = chunk_start_accuracy(positions)
            print(f"{scheme} seed {seed}: after a chunk start {start_acc:.3f}, others {rest:.3f}")
    print(f"CPU time: {time.process_time() - start:.0f} s")
    failed = claims(results, by_position)
    print("every claim holds" if not failed else "\n".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
