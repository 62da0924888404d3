"""Lesson 12's claims over many seeds, measured outside the notebook with its own code.

    python benchmarks/lesson12_seeds.py                 # seeds 0-11, appends to the results file
    python benchmarks/lesson12_seeds.py --seeds 2 3     # some seeds only
    python benchmarks/lesson12_seeds.py --report        # the table of what is in the file
    python benchmarks/lesson12_seeds.py --report --check  # and assert the lesson's seed claims

For every seed it trains lesson 12's six models on the sums task and its five recall-probe models
(`helpers.extrapolation`: `build_model`, `train_on_task`, the same seeds as the notebook's
`untrained`), then measures on the lesson's fixed test sets:

- the sums task: accuracy per range (8 <= t < L, L <= t < 2L, 2L <= t < 4L) for every scheme;
  beyond 2L, rotary with a 32-token window and with every offset beyond 31 scored as 31
  (`clamp_rotary_offsets`: every key kept), sinusoidal with the window;
- the recall probe: accuracy on the answers at t >= 2L with the full input, with a 32-token
  window, and with the key moved from position 0 to a random position 1 .. 62
  (`move_recall_key`, generator seed TEST_SEED + 1, as the notebook).

One line of JSON per seed goes to `benchmarks/lesson12_seeds.jsonl`. The notebook runs seed 0
(issue 41: its run time); the others are held out. `--check` asserts the claims the lesson makes
about seeds and those of its "What the measurements say" cell (the latter on the seeds that ran
all six schemes). One thread, one seed after another (the machine is shared).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import helpers  # noqa: E402
from helpers import extrapolation as ex  # noqa: E402

RESULTS = ROOT / "benchmarks" / "lesson12_seeds.jsonl"
L = ex.TRAIN_LENGTH
FAR = "2L <= t < 4L"
PROBE_SCHEMES = ("none", "sinusoidal", "rotary", "alibi", "relative")


def trained(scheme: str, seed: int, task: str) -> torch.nn.Module:
    helpers.seed_everything(seed)  # as the notebook's untrained / untrained_probe
    return ex.train_on_task(ex.build_model(scheme, task=task), seed, task=task)


def measure(seed: int, schemes: tuple[str, ...] = ex.SCHEMES) -> dict:
    start = time.process_time()
    test = ex.evaluation_tokens()
    sums = {}
    for scheme in schemes:
        model = trained(scheme, seed, "sums")
        tokens = test[:, :L] if scheme == "learned" else test
        sums[scheme] = ex.evaluate(model, tokens)[1]
        if scheme in ("rotary", "sinusoidal"):
            sums[scheme]["window 32, " + FAR] = ex.evaluate(model, test, window=L)[1][FAR]
        if scheme == "rotary":
            clamped = ex.clamp_rotary_offsets(model, L - 1)
            sums[scheme]["clamp 31, " + FAR] = ex.evaluate(clamped, test)[1][FAR]
    probe = ex.evaluation_tokens(task="recall")
    probe = probe[ex.recall_answer_mask(probe)[:, 2 * L :].any(dim=1)]  # answers at t >= 2L
    moved = ex.move_recall_key(probe, torch.Generator().manual_seed(ex.TEST_SEED + 1))
    recall = {}
    for scheme in PROBE_SCHEMES:
        model = trained(scheme, seed, "recall")
        recall[scheme] = {
            "full": ex.evaluate(model, probe, task="recall")[1][FAR],
            "window 32": ex.evaluate(model, probe, window=L, task="recall")[1][FAR],
            "key moved": ex.evaluate(model, moved, task="recall")[1][FAR],
        }
    return {"seed": seed, "sums": sums, "recall": recall, "cpu_s": time.process_time() - start}


def load() -> dict[int, dict]:
    if not RESULTS.exists():
        return {}
    rows = [json.loads(line) for line in RESULTS.read_text().splitlines() if line.strip()]
    return {row["seed"]: row for row in rows}  # the last line of a seed wins


def report(rows: dict[int, dict]) -> str:
    seeds = sorted(rows)
    out = ["Sums task, accuracy 8 <= t < L / L <= t < 2L / 2L <= t < 4L:", ""]
    out += ["| seed | " + " | ".join(ex.SCHEMES) + " |", "|---" * (len(ex.SCHEMES) + 1) + "|"]
    for seed in seeds:
        cells = []
        for scheme in ex.SCHEMES:
            if scheme not in rows[seed]["sums"]:
                cells.append("not run")
                continue
            values = [rows[seed]["sums"][scheme][r] for r in ex.RANGES]
            cells.append(" / ".join("-" if np.isnan(v) else f"{v:.2f}" for v in values))
        out.append(f"| {seed} | " + " | ".join(cells) + " |")
    out += ["", "Beyond 2L (sums): rotary full / window 32 / clamp 31; sinusoidal window 32;"]
    out += ["recall probe beyond 2L, full / window 32 / key moved to 1..62:", ""]
    out += ["| seed | rotary | sinusoidal window | " + " | ".join(PROBE_SCHEMES) + " | CPU s |"]
    out += ["|---" * (len(PROBE_SCHEMES) + 4) + "|"]
    for seed in seeds:
        r = rows[seed]["sums"]["rotary"]
        sinusoidal = rows[seed]["sums"].get("sinusoidal")
        cells = [
            f"{r[FAR]:.2f} / {r['window 32, ' + FAR]:.2f} / {r['clamp 31, ' + FAR]:.2f}",
            "not run" if sinusoidal is None else f"{sinusoidal['window 32, ' + FAR]:.2f}",
        ]
        for scheme in PROBE_SCHEMES:
            p = rows[seed]["recall"][scheme]
            cells.append(f"{p['full']:.2f} / {p['window 32']:.2f} / {p['key moved']:.2f}")
        out.append(f"| {seed} | " + " | ".join(cells) + f" | {rows[seed]['cpu_s']:.0f} |")
    return "\n".join(out)


def check(rows: dict[int, dict]) -> dict[str, bool]:
    """The lesson's claims about seeds, on every seed in the file (seeds 0 and 1 are also in the
    notebook; the others are held out)."""
    sums = {seed: row["sums"] for seed, row in rows.items()}
    recall = {seed: row["recall"] for seed, row in rows.items()}
    inside = "8 <= t < L"
    learned = [s["learned"][inside] for s in sums.values() if "learned" in s]
    claims = {
        "rotary, offsets > 31 scored as 31: >= 0.85 beyond 2L": all(
            s["rotary"]["clamp 31, " + FAR] >= 0.85 for s in sums.values()
        ),
        "rotary: the window adds < 0.15 to the clamp": all(
            s["rotary"]["window 32, " + FAR] - s["rotary"]["clamp 31, " + FAR] < 0.15
            for s in sums.values()
        ),
        "alibi: below relative by > 0.05 inside L": all(
            s["alibi"][inside] < s["relative"][inside] - 0.05 for s in sums.values()
        ),
        "learned inside L: some seed below 0.5 (the notebook's seed 0: 0.90)": min(learned) < 0.5,
        "recall, last 32 tokens only: < 0.4 for every model": all(
            r[s]["window 32"] < 0.4 for r in recall.values() for s in PROBE_SCHEMES
        ),
        "recall, full input: none, sinusoidal, alibi, relative >= 0.95": all(
            r[s]["full"] >= 0.95 for r in recall.values() for s in PROBE_SCHEMES if s != "rotary"
        ),
        "recall, full input: rotary >= 0.6": all(
            r["rotary"]["full"] >= 0.6 for r in recall.values()
        ),
        "recall, key moved to 1..62: some model loses > 0.25": all(
            max(r[s]["full"] - r[s]["key moved"] for s in PROBE_SCHEMES) > 0.25
            for r in recall.values()
        ),
    }
    # "What the measurements say" (the notebook's core claims), on every seed that ran the schemes
    full = [s for s in sums.values() if all(x in s for x in ex.SCHEMES)]
    near = "L <= t < 2L"

    def r(s: dict, scheme: str) -> list[float]:
        return [s[scheme][key] for key in ex.RANGES]

    claims |= {
        "(all six schemes run on some seed)": bool(full),
        "relative: >= 0.95 in every range": all(min(r(s, "relative")) >= 0.95 for s in full),
        "alibi: >= 0.7 in every range, losing < 0.1 from inside L to 2L+": all(
            min(r(s, "alibi")) >= 0.7 and s["alibi"][inside] - s["alibi"][FAR] < 0.1 for s in full
        ),
        "relative: above alibi beyond 2L": all(s["relative"][FAR] > s["alibi"][FAR] for s in full),
        "rotary: >= 0.97 inside L, < 0.25 beyond 2L": all(
            s["rotary"][inside] >= 0.97 and s["rotary"][FAR] < 0.25 for s in full
        ),
        "sinusoidal: loses > 0.4 from inside L to past L, < 0.25 past L": all(
            s["sinusoidal"][inside] - s["sinusoidal"][near] > 0.4
            and max(s["sinusoidal"][near], s["sinusoidal"][FAR]) < 0.25
            for s in full
        ),
        "none: < 0.6 inside L, then falls range by range": all(
            s["none"][inside] < 0.6
            and s["none"][inside] > s["none"][near] + 0.05
            and s["none"][near] > s["none"][FAR] + 0.03
            for s in full
        ),
        "none: beyond 2L, above sinusoidal and rotary by > 0.05": all(
            s["none"][FAR] > max(s["sinusoidal"][FAR], s["rotary"][FAR]) + 0.05 for s in full
        ),
        "sinusoidal, last 32 tokens only: < 0.3 beyond 2L": all(
            s["sinusoidal"]["window 32, " + FAR] < 0.3 for s in full
        ),
        "rotary, last 32 tokens only: >= 0.95 beyond 2L": all(
            s["rotary"]["window 32, " + FAR] >= 0.95 for s in sums.values()
        ),
    }
    return claims


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="*", default=list(range(12)))
    parser.add_argument(
        "--schemes", nargs="*", default=list(ex.SCHEMES), help="sums-task schemes to train"
    )
    parser.add_argument("--report", action="store_true", help="print the table and run nothing")
    parser.add_argument("--check", action="store_true", help="also check the lesson's claims")
    args = parser.parse_args()
    if not args.report:
        torch.set_num_threads(1)
        for seed in args.seeds:
            row = measure(seed, tuple(args.schemes))
            with RESULTS.open("a") as file:
                file.write(json.dumps(row) + "\n")
            print(f"seed {seed}: {row['cpu_s']:.0f} s CPU", flush=True)
    print(report(load()))
    if args.check:
        claims = check(load())
        for claim, holds in claims.items():
            print(f"{claim:<72} {holds}")
        if not all(claims.values()):
            raise SystemExit("a claim of lesson 12 fails on these seeds")


if __name__ == "__main__":
    main()
