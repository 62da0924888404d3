"""Lesson 14: where the Laplacian model's attention goes, by graph distance, on more seeds.

    python benchmarks/lesson14_laplacian_attention.py 2 3      # the seeds to train

Runs the lesson's own code cells (set-up, graph helpers, `DistanceBias`, the graph pool, the
model and `train_and_test`; read from the notebook, not copied) for the Laplacian encoding only,
then prints, per seed, the test accuracy and, per layer and head, the mean attention weight per
node at 0, 1, 2 and >= 3 hops on the lesson's test graphs and marks. The lesson runs seeds 0
and 1 and asserts that in the second layer every head gives a neighbour more than twice the
weight of a node three or more hops away; this script checks the same on other seeds.
"""

from __future__ import annotations

import json
import pathlib
import sys

import torch

ROOT = pathlib.Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
NOTEBOOK = ROOT / "notebooks" / "14_positions_in_graphs_and_time.ipynb"
CELLS = ("import time", "def adjacency_of", "class DistanceBias", "NUM_NODES, DEGREE")
CELLS += ("class GraphTransformer", "def train_and_test")


def main() -> None:
    seeds = tuple(int(s) for s in sys.argv[1:]) or (2, 3)
    cells = ["".join(c["source"]) for c in json.loads(NOTEBOOK.read_text())["cells"]]
    space: dict = {}
    for start in CELLS:
        (source,) = [c for c in cells if c.startswith(start)]
        if start == "NUM_NODES, DEGREE":
            source = source.replace("SEEDS = (0, 1)", f"SEEDS = {seeds!r}")
            source = source.replace(
                'ENCODINGS = ("none", "laplacian", "random walk", "distance bias")',
                'ENCODINGS = ("laplacian",)',
            )
        exec(compile(source, str(NOTEBOOK), "exec"), space)  # the lesson's own code
    test = space["test_graphs"]
    index = torch.arange(len(test["adjacency"]))
    marks, _ = space["mark_and_label"](test, index, torch.Generator().manual_seed(99))
    hops = test["distances"]
    for seed in seeds:
        model = space["trained"]["laplacian", seed]
        print(f"seed {seed}: accuracy {space['accuracy']['laplacian', seed]:.3f}")
        with torch.no_grad():
            x = model.mark(marks) + model.node_encoding(test["laplacian"])
            for number, layer in enumerate(model.layers, start=1):
                x, weights = layer(x, need_weights=True)  # (graphs, heads, N, N)
                for head, w in enumerate(weights.transpose(0, 1)):
                    per = [w[hops == d].mean() for d in (0, 1, 2)] + [w[hops >= 3].mean()]
                    text = ", ".join(f"{float(p):.3f}" for p in per)
                    print(f"  layer {number}, head {head}: weight per node at 0/1/2/3+ hops {text}")


if __name__ == "__main__":
    torch.set_num_threads(1)
    main()
