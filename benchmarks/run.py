"""Graph vs eager NumPy on the seed workloads; prints one table of medians and ratios.

    python benchmarks/run.py [--quick]

Each workload is the same source run undecorated (eager NumPy) and through
`ag.function`, timed side by side in one process (medians of repeated batches; this
is a noisy 2-core machine, so read the ratios, not the absolute times).
"""
from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import autograph as ag  # noqa: E402
import workloads as w  # noqa: E402


def median_time(fn, args, number: int, repeat: int) -> float:
    """Median seconds per call over `repeat` batches of `number` calls."""
    fn(*args)  # warm up (and trace)
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            fn(*args)
        times.append((time.perf_counter() - start) / number)
    return statistics.median(times)


def interleaved(eager, graph, args, number, repeat):
    """Alternate eager and graph batches so drifts in machine load hit both alike."""
    eager(*args)
    graph(*args)
    te, tg = [], []
    for _ in range(repeat):
        te.append(median_time(eager, args, number, 1))
        tg.append(median_time(graph, args, number, 1))
    return statistics.median(te), statistics.median(tg)


def _compiler_ready() -> bool:
    try:
        from autograph.impl import api  # noqa: F401
    except ImportError:
        return False
    return True


def workloads():
    rng = np.random.default_rng(0)
    model = w.DeepModel()
    yield ("per-call overhead: add_two(x, y), 1-element arrays", w.add_two,
           (np.ones(1, np.float32), np.ones(1, np.float32)), 20000, False)
    yield ("power(x, 100), 10x10 int32 (seed)", w.power,
           (rng.integers(0, 2, (10, 10)).astype(np.int32), 100), 200, False)
    s = rng.standard_normal((256, 256)).astype(np.float32) * 0.01
    yield ("matmul loop x10, 256x256 float32 (seed)", w.matmul_loop,
           (s, s.copy(), s.copy()), 20, False)
    yield ("24-layer dense model, batch 1", model,
           (rng.standard_normal((1, 64)).astype(np.float32),), 2000, False)
    if _compiler_ready():
        yield ("Collatz while loop on an int64 (27)", w.collatz, (np.int64(27),), 500, True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (for smoke tests)")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 15
    rows = []
    for name, fn, fargs, number, needs_conversion in workloads():
        number = max(1, number // 10) if args.quick else number
        graph = ag.function(fn, autograph=needs_conversion)
        expected, got = fn(*fargs), graph(*fargs)
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-4)
        te, tg = interleaved(fn, graph, fargs, number, repeat)
        rows.append((name, te, tg))
    width = max(len(r[0]) for r in rows)
    print(f"{'workload':<{width}}  {'eager':>10}  {'graph':>10}  {'graph/eager':>11}")
    for name, te, tg in rows:
        print(f"{name:<{width}}  {_fmt(te):>10}  {_fmt(tg):>10}  {tg / te:>11.2f}")


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.3f} ms"


if __name__ == "__main__":
    main()
