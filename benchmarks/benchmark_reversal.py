"""How fast does the course's mini-Transformer learn to reverse sequences on this machine?

Trains the model of notebook 10 with the notebook's recipe (sequence reversal, 10 symbols,
length 16, the same sizes and schedule: 250 steps of 32 sequences, warm-up 25, factor 0.7, the
last 125 steps a linear cool-down, label smoothing 0.1; the attention initialised as PyTorch
initialises its own, ``helpers.training.init_attention_like_torch``) and prints:

1. for each seed: the step, the wall-clock and the CPU seconds of training at which greedy
   decoding first reaches >= 99% exact-sequence accuracy on 1,000 held-out sequences
   (evaluated every ``--eval-every`` steps; evaluation time is not counted), the training
   steps per second, and the exact-sequence and token accuracy at the end of the run;
2. the per-step time of ``helpers.transformer.Transformer`` divided by that of
   ``torch.nn.Transformer`` in an identical configuration (same embeddings, sizes, post-LN,
   masks and batches), measured in interleaved rounds and summarised by the median.

Usage::

    python benchmarks/benchmark_reversal.py                  # 3 seeds
    python benchmarks/benchmark_reversal.py --seeds 0 --reference   # torch.nn.Transformer too
    python benchmarks/benchmark_reversal.py --seeds 0 1 2 3 4 --no-ratio  # seeds only
    python benchmarks/benchmark_reversal.py --seeds $(seq 0 15) --no-ratio  # seeds 0-15
    python benchmarks/benchmark_reversal.py --recipe old ...   # before issue 23: no re-draw

``--recipe old`` is notebook 10's recipe before issue 23: ``Transformer``'s own initialisation
(``nn.Linear``'s biases, one Xavier draw per projection) and no label smoothing.
``torch.nn.Transformer`` (``--reference``) gets the same recipe's label smoothing.

Results measured on the course's machine are in ``benchmarks/RESULTS.md``.

One thread (``torch.set_num_threads(1)``): for models this small, PyTorch's threads cost more
in synchronisation than they gain, and on a busy 2-core machine two threads can be many times
slower than one. CPU seconds are printed next to wall-clock seconds because on a shared
machine wall-clock time also counts the time other processes held the core.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

import helpers
from helpers.data import BOS_ID, EOS_ID, batch_stream, make_dataset, vocab_size
from helpers.training import evaluate, init_attention_like_torch, noam_scheduler, train_step
from helpers.transformer import TorchReferenceTransformer, Transformer, count_parameters

# The configuration of notebook 10 (explained there).
NUM_SYMBOLS, SEQ_LEN = 10, 16
MODEL = {"d_model": 64, "num_heads": 4, "num_layers": 1, "d_ff": 256, "dropout": 0.0}
BATCH_SIZE, NUM_STEPS, WARMUP_STEPS, LR_FACTOR, COOLDOWN_STEPS = 32, 250, 25, 0.7, 125
LABEL_SMOOTHING = {"lesson": 0.1, "old": 0.0}  # by recipe
HELD_OUT_SEED = 12345  # the training stream uses the run's seed; the test set its own


def build(kind: str, seed: int, recipe: str = "lesson") -> torch.nn.Module:
    """The notebook's model ("helpers") or its torch.nn twin ("torch"), drawn from ``seed``;
    ``recipe="lesson"`` re-draws the helpers model's attention as PyTorch draws its own."""
    helpers.seed_everything(seed)
    cls = Transformer if kind == "helpers" else TorchReferenceTransformer
    vocab = vocab_size(NUM_SYMBOLS)
    model = cls(vocab, vocab, **MODEL)
    if kind == "helpers" and recipe == "lesson":
        init_attention_like_torch(model)
    return model


def time_to_solve(kind: str, seed: int, eval_every: int, recipe: str = "lesson") -> dict:
    """Train with the notebook's schedule; return when (step, seconds) the model first reached
    99% exact-match on the held-out set, and its scores at the end of the run."""
    src_test, tgt_test = make_dataset("reverse", 1000, NUM_SYMBOLS, SEQ_LEN, seed=HELD_OUT_SEED)
    model = build(kind, seed, recipe)
    optimizer = torch.optim.Adam(model.parameters(), lr=1.0, betas=(0.9, 0.98), eps=1e-9)
    scheduler = noam_scheduler(
        optimizer, MODEL["d_model"], WARMUP_STEPS, LR_FACTOR, NUM_STEPS, COOLDOWN_STEPS
    )
    batches = batch_stream("reverse", BATCH_SIZE, NUM_SYMBOLS, SEQ_LEN, seed=seed)
    wall = cpu = 0.0
    solved = None
    for step in range(1, NUM_STEPS + 1):
        src, tgt = next(batches)
        start_wall, start_cpu = time.perf_counter(), time.process_time()
        train_step(model, src, tgt, optimizer, label_smoothing=LABEL_SMOOTHING[recipe])
        scheduler.step()
        wall += time.perf_counter() - start_wall
        cpu += time.process_time() - start_cpu
        checkpoint = step % eval_every == 0 or step == NUM_STEPS
        if solved is None and checkpoint:
            scores = evaluate(model, src_test, tgt_test, BOS_ID, EOS_ID)
            if scores["exact_match"] >= 0.99:
                solved = {"steps": step, "wall": wall, "cpu": cpu}
    final = evaluate(model, src_test, tgt_test, BOS_ID, EOS_ID)
    return {"solved": solved, "wall": wall, "cpu": cpu, **final}


def step_time_ratio(rounds: int, steps_per_round: int) -> tuple[float, float, float]:
    """Median per-step seconds of both models over interleaved rounds, and their ratio."""
    models = {kind: build(kind, 0) for kind in ("helpers", "torch")}
    assert count_parameters(models["helpers"]) == count_parameters(models["torch"])
    optimizers = {k: torch.optim.Adam(m.parameters(), lr=1e-3) for k, m in models.items()}
    batches = [
        next(batch_stream("reverse", BATCH_SIZE, NUM_SYMBOLS, SEQ_LEN, seed=s))
        for s in range(steps_per_round)
    ]
    times = {kind: [] for kind in models}
    for round_index in range(rounds + 1):  # round 0 warms up (allocations, lazy imports)
        for kind, model in models.items():
            start = time.perf_counter()
            for src, tgt in batches:
                train_step(model, src, tgt, optimizers[kind])
            if round_index:
                times[kind].append((time.perf_counter() - start) / steps_per_round)
    ratios = [h / t for h, t in zip(times["helpers"], times["torch"], strict=True)]
    return (
        statistics.median(times["helpers"]),
        statistics.median(times["torch"]),
        statistics.median(ratios),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--eval-every", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the step-time ratio")
    parser.add_argument(
        "--reference", action="store_true", help="also train torch.nn.Transformer the same way"
    )
    parser.add_argument(
        "--no-ratio", action="store_true", help="skip the step-time ratio with torch.nn"
    )
    parser.add_argument(
        "--recipe",
        choices=("lesson", "old"),
        default="lesson",
        help="lesson: notebook 10's recipe; old: before issue 23 (no re-drawn attention, no smoothing)",
    )
    args = parser.parse_args()
    torch.set_num_threads(1)

    print(
        f"reversal: {NUM_SYMBOLS} symbols, length {SEQ_LEN}; model {MODEL}; batch {BATCH_SIZE}; "
        f"{NUM_STEPS} steps (warm-up {WARMUP_STEPS}, factor {LR_FACTOR}, cool-down "
        f"{COOLDOWN_STEPS}); recipe {args.recipe} (label smoothing "
        f"{LABEL_SMOOTHING[args.recipe]}); "
        f"{count_parameters(build('helpers', 0)):,} parameters; "
        f"torch {torch.__version__}, 1 thread"
    )
    print(
        f"\nFirst >= 99% exact-sequence accuracy on 1,000 held-out sequences (checked every "
        f"{args.eval_every} steps; training time only), and the scores after {NUM_STEPS} steps"
    )
    print(
        f"{'model':8} {'seed':>4} {'steps':>6} {'wall s':>7} {'CPU s':>6} {'steps/s':>8} "
        f"{'final exact':>12} {'final token':>12}"
    )
    kinds = ["helpers", "torch"] if args.reference else ["helpers"]
    for kind in kinds:
        for seed in args.seeds:
            r = time_to_solve(kind, seed, args.eval_every, args.recipe)
            hit = r["solved"] or {"steps": "never", "wall": float("nan"), "cpu": float("nan")}
            print(
                f"{kind:8} {seed:>4} {hit['steps']:>6} {hit['wall']:7.1f} {hit['cpu']:6.1f} "
                f"{NUM_STEPS / r['wall']:8.1f} {r['exact_match']:12.3f} "
                f"{r['token_accuracy']:12.4f}",
                flush=True,
            )

    if args.no_ratio:
        return
    ours, theirs, ratio = step_time_ratio(args.rounds, steps_per_round=20)
    print(f"\nPer training step (median of {args.rounds} interleaved rounds of 20 steps):")
    print(f"  helpers.transformer.Transformer  {ours * 1e3:6.1f} ms")
    print(f"  torch.nn.Transformer             {theirs * 1e3:6.1f} ms")
    print(f"  ratio helpers / torch            {ratio:6.2f}")


if __name__ == "__main__":
    main()
