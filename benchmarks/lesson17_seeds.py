"""Notebook 17's NoPE experiment on held-out seeds: does every claim the notebook asserts on
seed 0 hold on other seeds?

    python benchmarks/lesson17_seeds.py              # seeds 1 2 3 4
    python benchmarks/lesson17_seeds.py --seeds 5 6

For each seed it trains the notebook's three 4-layer models (lesson 12's task and recipe: all
rotary, no position, rotary with layer 3 left without position) with the notebook's seeding,
scores them per range on lesson 12's fixed test set, fits the notebook's position probe to the
no-position model with and without the causal mask, prints one row per model and seed, and checks
the notebook's claims; exits with status 1 if one fails. Results: benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import helpers  # noqa: E402
from helpers.extrapolation import (  # noqa: E402
    EVAL_LENGTH,
    MODEL_SIZE,
    TRAIN_LENGTH,
    VOCAB,
    evaluate_many,
    evaluation_tokens,
    train_many,
)
from helpers.transformer import DecoderOnlyTransformer  # noqa: E402

L = TRAIN_LENGTH
SIZE = MODEL_SIZE | {"num_layers": 4}  # the notebook's model
CONFIGS = {  # the notebook's three models
    "rotary": {"positional": "rotary"},
    "no position": {"positional": "none"},
    "rotary, NoPE every 4th": {"positional": "rotary", "nope_layers": (3,)},
}
INSIDE, NEAR, FAR = "8 <= t < L", "L <= t < 2L", "2L <= t < 4L"


def hidden_states(model, x, causal):
    """Each layer's output, flattened to (B * L, d_model), with or without the causal mask (the
    notebook's function)."""
    mask = torch.ones(x.shape[1], x.shape[1], dtype=torch.bool).tril() if causal else None
    h, states = model.embedding(x), []
    with torch.no_grad():
        for layer in model.layers:
            h, _ = layer(h, mask=mask)
            states.append(h.reshape(-1, h.shape[-1]).double().numpy())
    return states


def probe_r2(model, causal, seed):
    """R^2 on fresh random sequences of a least-squares fit from hidden states to t, layer by
    layer (the notebook's probe, its generator seeds 100 + seed and 200 + seed)."""
    fit = torch.randint(0, VOCAB, (256, L), generator=torch.Generator().manual_seed(100 + seed))
    test = torch.randint(0, VOCAB, (128, L), generator=torch.Generator().manual_seed(200 + seed))
    t_fit, t_test = np.tile(np.arange(L), 256), np.tile(np.arange(L), 128)
    scores = []
    for h_fit, h_test in zip(
        hidden_states(model, fit, causal), hidden_states(model, test, causal), strict=True
    ):
        w, *_ = np.linalg.lstsq(np.hstack([h_fit, np.ones((len(h_fit), 1))]), t_fit, rcond=None)
        predicted = np.hstack([h_test, np.ones((len(h_test), 1))]) @ w
        residual = ((predicted - t_test) ** 2).sum() / ((t_test - t_test.mean()) ** 2).sum()
        scores.append(float(1 - residual))
    return scores


def claims(results: dict, probes: dict) -> list[str]:
    """The notebook's claims on ``results[(seed, name)] = {range: accuracy}`` and
    ``probes[seed] = {"causal": [R^2 per layer], "no mask": [...]}``: the failed ones."""
    failed = []
    for seed in probes:
        rotary, nope4 = results[seed, "rotary"], results[seed, "rotary, NoPE every 4th"]
        none = results[seed, "no position"]
        if not (rotary[INSIDE] >= 0.95 and nope4[INSIDE] >= 0.95):
            failed.append(f"seed {seed}: a rotary model below 0.95 inside L")
        if not none[INSIDE] < 0.7:
            failed.append(f"seed {seed}: no position reaches 0.7 inside L")
        if not abs(nope4[FAR] - rotary[FAR]) < 0.03:
            failed.append(f"seed {seed}: the NoPE layer moves accuracy beyond 2L by >= 0.03")
        if not (abs(rotary[FAR] - 1 / 8) < 0.03 and abs(nope4[FAR] - 1 / 8) < 0.03):
            failed.append(f"seed {seed}: a rotary model is not within 0.03 of chance beyond 2L")
        if not none[FAR] > rotary[FAR] + 0.05:
            failed.append(f"seed {seed}: no position does not beat rotary by 0.05 beyond 2L")
        if not probes[seed]["causal"][-1] > 0.5:
            failed.append(f"seed {seed}: causal probe R^2 <= 0.5 in the last layer")
        if not max(probes[seed]["no mask"]) < 0.05:
            failed.append(f"seed {seed}: probe without the mask reaches R^2 0.05")
    return failed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[1, 2, 3, 4])
    args = parser.parse_args()
    torch.set_num_threads(1)
    start = time.process_time()
    jobs = {}
    for seed in args.seeds:
        for name, options in CONFIGS.items():  # drawn in the notebook's order
            helpers.seed_everything(seed)
            model = DecoderOnlyTransformer(VOCAB, **SIZE, max_len=EVAL_LENGTH, **options)
            jobs[seed, name] = model, seed
    models = train_many(jobs)
    results = {k: r for k, (_, r) in evaluate_many(models, evaluation_tokens()).items()}
    probes = {
        seed: {
            "causal": probe_r2(models[seed, "no position"], True, seed),
            "no mask": probe_r2(models[seed, "no position"], False, seed),
        }
        for seed in args.seeds
    }
    print(f"| model | seed | {INSIDE} | {NEAR} | {FAR} |\n|---|---|---|---|---|")
    for (seed, name), acc in results.items():
        print(f"| {name} | {seed} | {acc[INSIDE]:.3f} | {acc[NEAR]:.3f} | {acc[FAR]:.3f} |")
    for seed, scores in probes.items():
        causal = ", ".join(f"{r:.2f}" for r in scores["causal"])
        no_mask = ", ".join(f"{r:.2f}" for r in scores["no mask"])
        print(f"seed {seed}: probe R^2 by layer, causal [{causal}], no mask [{no_mask}]")
    print(f"CPU time: {time.process_time() - start:.0f} s")
    failed = claims(results, probes)
    print("every claim holds" if not failed else "\n".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
