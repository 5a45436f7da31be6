"""Calls of an ag.function under an eager GradientTape, and what the tape check costs
calls outside tapes: medians measured side by side in one run.

- "no tape": the same small function (`x + 1`), its executor generated with and without
  the first-line check for a recording tape (runtime/exec/tape_calls.py);
- "under a tape": one training step (`with tape: loss = model(x)`, then `tape.gradient`)
  of a compiled model reading two Variables, against the same code run eagerly (a call
  under a tape runs op by op, so the ratio is expected near 1).

    python benchmarks/bench_tape_calls.py [--repeats N] [--inner N]
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import autograph as ag
import runtime.frontend.concrete as concrete

X = np.ones(3, np.float32)
W = ag.Variable(np.full((16, 8), 0.1))
B = ag.Variable(np.zeros(8))
BATCH = np.linspace(-1, 1, 64 * 16).reshape(64, 16)


def plus_one(x):
    return x + 1


def model(x):
    return np.mean(np.tanh(x @ W + B) ** 2)


def _without_tape_check(fn):
    """`fn` compiled with executors generated without the check (for comparison only)."""
    original = concrete.compile_graph
    concrete.compile_graph = lambda *a, on_tape=None, **k: original(*a, **k)
    try:
        compiled = ag.function(fn)
        compiled(X)
    finally:
        concrete.compile_graph = original
    return compiled


def _per_call(fn, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn()
    return (time.perf_counter() - start) / inner


def _step(fn):
    def step():
        with ag.GradientTape() as tape:
            loss = fn(BATCH)
        return tape.gradient(loss, [W, B])
    return step


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--inner", type=int, default=2000)
    options = parser.parse_args()
    with_check = ag.function(plus_one)
    with_check(X)
    without = _without_tape_check(plus_one)
    compiled_model = ag.function(model)
    compiled_model(BATCH)
    cases = {"no tape: with check": lambda: with_check(X),
             "no tape: without check": lambda: without(X),
             "under a tape: ag.function": _step(compiled_model),
             "under a tape: eager code": _step(model)}
    times = {name: [] for name in cases}
    for _ in range(options.repeats):  # interleaved, so load changes hit every row alike
        for name, fn in cases.items():
            inner = options.inner if name.startswith("no tape") else max(options.inner // 20, 1)
            times[name].append(_per_call(fn, inner))
    med = {name: statistics.median(t) for name, t in times.items()}
    print(f"{'case':28} {'median':>10}")
    for name, t in med.items():
        print(f"{name:28} {t * 1e6:8.2f}us")
    print(f"\ncheck cost outside tapes: {(med['no tape: with check'] / med['no tape: without check'] - 1) * 100:+.1f}%"
          f"; step under a tape, ag.function / eager: "
          f"{med['under a tape: ag.function'] / med['under a tape: eager code']:.2f}x")


if __name__ == "__main__":
    main()
