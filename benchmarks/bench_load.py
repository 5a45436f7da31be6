"""Loading benchmark: `ag.load` time against the size of the saved graph.

Writes saved functions of a chain of N elementwise nodes (N = 10,000 ... 100,000, in both
the graph and the optimized graph of one trace), loads each three times and prints the
median load time (wall and CPU: the machine may be shared), the file size, the time per
node (a quadratic step shows as a time per node that grows with N), and the first call,
which generates and compiles the executor. The goal (issue 24): 100,000 nodes load in at
most 2 s.

    python benchmarks/bench_load.py
"""
from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import numpy as np

import autograph as ag
from runtime.saved.container import write
from runtime.saved.format import FORMAT, VERSION

OPS = (("add", 1.0), ("multiply", 0.5), ("subtract", 0.25), ("maximum", -1.0))  # bounded


def chain(n: int) -> dict:
    """A graph x -> op(x, c) -> op(., c) ... of n nodes on float64[64], in the layout of
    docs/saved_format.md (value 0 is x, value k the output of node k - 1)."""
    nodes = []
    for i in range(n):
        op, constant = OPS[i % len(OPS)]
        nodes.append([op, [i, [constant]], {}, [[f"v{i}", "<f8", [64]]], i % 50])
    return {"name": "f", "inputs": [["x", "<f8", [64]]], "nodes": nodes, "outputs": [n]}


def description(n: int) -> dict:
    graph = chain(n)
    return {"format": FORMAT, "version": VERSION,
            "function": {"name": "f", "input_signature": None,
                         "parameters": [{"name": "x", "kind": "POSITIONAL_OR_KEYWORD"}]},
            "variables": [],
            "origins": [["model.py", 10 + line, "f"] for line in range(50)],
            "concrete_functions": [{
                "key": [{"array": {"dtype": "<f8", "shape": [64]}}],
                "results": {"tree": None, "leaves": [{"output": True}]},
                "writeback": [], "graph": graph, "optimized_graph": graph}]}


def main(sizes=(10_000, 25_000, 50_000, 100_000), repeats: int = 3) -> None:
    directory = tempfile.mkdtemp(prefix="bench_load")
    x = np.linspace(-1.0, 1.0, 64)
    print(f"median of {repeats} loads; the executor is generated on the first call")
    print(f"{'nodes':>8} {'file KB':>9} {'load s':>8} {'load CPU s':>11} {'us/node':>8} "
          f"{'1st call s':>11}")
    last = last_cpu = 0.0
    for n in sizes:
        path = os.path.join(directory, f"chain{n}.agz")
        write(path, description(n), {})
        walls, cpus, firsts = [], [], []
        for _ in range(repeats):
            start, cpu = time.perf_counter(), time.process_time()
            loaded = ag.load(path)
            walls.append(time.perf_counter() - start)
            cpus.append(time.process_time() - cpu)
            start = time.perf_counter()
            assert np.isfinite(loaded(x)).all()
            firsts.append(time.perf_counter() - start)
            del loaded
        wall, cpu, first = (statistics.median(v) for v in (walls, cpus, firsts))
        last, last_cpu = wall, cpu
        print(f"{n:>8} {os.path.getsize(path) / 1024:>9.0f} {wall:>8.2f} {cpu:>11.2f} "
              f"{wall / n * 1e6:>8.1f} {first:>11.2f}")
    print(f"{sizes[-1]:,} nodes (graph and optimized graph each): load {last:.2f} s, "
          f"{last_cpu:.2f} s CPU (goal <= 2 s; wall time grows with the machine's load)")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or (10_000, 25_000, 50_000, 100_000))
