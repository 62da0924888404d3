"""Run an exercise checker on a learner's answer and print the verdict and hint.

    python scripts/evaluate_answer.py check_rotary answer.py            # the file's only function
    python scripts/evaluate_answer.py check_rotary answer.py --function my_rotary
    python scripts/evaluate_answer.py --corpus                          # the corpus summary

With ``--corpus`` it runs every answer of ``tests/learner_answers/`` and prints, per checker, the
number of wrong and right answers, how many wrong answers got a hint that names a registered
mistake, one that states a specific difference, only the verdict line (the function raised or
returned something unusable), or the honest "no simple relation" with the smallest failing case;
and any wrong answer accepted or right answer rejected. From Python:
``from scripts.evaluate_answer import evaluate_file``.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.learner_answers import classify, evaluate, load  # noqa: E402


def _function_from(path: Path, name: str | None):
    spec = importlib.util.spec_from_file_location("learner_answer", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    functions = {
        n: f
        for n, f in vars(module).items()
        if inspect.isfunction(f) and f.__module__ == module.__name__
    }
    if name is not None:
        if name not in functions:
            raise SystemExit(f"{path} defines no function {name!r}; it has {sorted(functions)}")
        return functions[name]
    if len(functions) != 1:
        raise SystemExit(f"{path} defines {sorted(functions)}: name one with --function")
    return next(iter(functions.values()))


def evaluate_file(checker: str, path: str | Path, function: str | None = None) -> tuple[bool, str]:
    """Run ``checker`` (a name such as "check_rotary") on a function defined in ``path``."""
    return evaluate(checker, _function_from(Path(path), function))


def mistake_hints(checker: str) -> set[str]:
    """The hints of a checker's registered mistakes (read from the checker's own call)."""
    from tests.test_exercises_separation import checker_setup

    return {m.hint for m in checker_setup(checker)["mistakes"]}


def corpus_summary() -> list[dict]:
    """One row per checker: sizes, hint classes and wrong verdicts over the corpus."""
    rows: dict[str, dict] = {}
    for answer in load():
        row = rows.setdefault(
            answer.checker,
            {"checker": answer.checker, "wrong": 0, "right": 0, "bad_verdicts": [], **Counter()},
        )
        ok, out = evaluate(answer.checker, answer.fn)
        if answer.words is None:
            row["right"] += 1
            if not ok:
                row["bad_verdicts"].append(f"{answer.name} rejected")
            continue
        row["wrong"] += 1
        if ok:
            row["bad_verdicts"].append(f"{answer.name} accepted")
            continue
        kind = classify(answer.checker, out, mistake_hints(answer.checker))
        row[kind] = row.get(kind, 0) + 1
    return list(rows.values())


def _print_summary(rows: list[dict]) -> None:
    header = f"{'checker':32} {'wrong':>5} {'right':>5} {'named':>5} {'specific':>8} "
    header += f"{'error':>5} {'none':>4} {'share':>6}"
    print(header)
    total = Counter()
    for row in sorted(rows, key=lambda r: r["checker"]):
        named, specific = row.get("named", 0), row.get("specific", 0)
        error, none = row.get("error", 0), row.get("none", 0)
        share = (named + specific) / row["wrong"] if row["wrong"] else 0.0
        print(
            f"{row['checker']:32} {row['wrong']:5} {row['right']:5} {named:5} {specific:8} "
            f"{error:5} {none:4} {share:6.0%}"
        )
        for bad in row["bad_verdicts"]:
            print(f"    WRONG VERDICT: {bad}")
        total.update(
            wrong=row["wrong"],
            right=row["right"],
            named=named,
            specific=specific,
            error=error,
            none=none,
        )
    share = (total["named"] + total["specific"]) / max(total["wrong"], 1)
    print(
        f"{'all':32} {total['wrong']:5} {total['right']:5} {total['named']:5} "
        f"{total['specific']:8} {total['error']:5} {total['none']:4} {share:6.0%}"
    )
    print("share: hints that name a registered mistake or state a specific difference")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checker", nargs="?", help="e.g. check_rotary")
    parser.add_argument("path", nargs="?", help="a .py file defining the answer")
    parser.add_argument("--function", help="the function's name, if the file has several")
    parser.add_argument("--corpus", action="store_true", help="summarise tests/learner_answers")
    args = parser.parse_args()
    if args.corpus:
        _print_summary(corpus_summary())
        return
    if not args.checker or not args.path:
        parser.error("give a checker and a file, or --corpus")
    ok, out = evaluate_file(args.checker, args.path, args.function)
    print(out, end="")
    print(f"verdict: {'PASS' if ok else 'FAIL'}")


if __name__ == "__main__":
    main()
