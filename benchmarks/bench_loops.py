"""Python loops in traced functions: first-call time, executor size and per-call time
against eager NumPy, measured side by side in one run (medians of paired ratios).

Rows (issue 25's targets: the solver's first call <= 100 ms and per call <= 1.0x eager;
edit distance 60x60 traced in <= 200 ms and <= 1.0x eager):
- the solver idiom `for i in range(max_iter): ...; if np.max(np.abs(dx)) < tol: break`
  with a Python max_iter of 1000 (it converges after a few iterations);
- edit distance over two 60-element integer arrays (`for i in range(len(a))`, nested).

    python benchmarks/bench_loops.py [--repeats N] [--no-jit] [--fresh N]

`--fresh N` also times each workload's first call (convert, trace, optimize, generate)
in N fresh processes, and the early returns over 10,000 elements of bench_jit_loops.py
(target: <= 100 ms; Newton <= 100 ms, edit distance <= 200 ms): the median of the wall
clock (and of the process's CPU time). The children may write Python's bytecode cache
(a first process fills it), as an installed package has one.
"""
from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time

import numpy as np

import autograph as ag


def newton(x0, max_iter, tol=1e-10):
    x = x0
    for i in range(max_iter):  # noqa: B007 (i is read after the loop)
        fx = x * x * x - 2.0 * x - 5.0
        dx = fx / (3.0 * x * x - 2.0)
        x = x - dx
        if np.max(np.abs(dx)) < tol:
            break
    return x, i


def edit_distance(a, b):
    n, m = len(a), len(b)
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    for i in range(n + 1):
        d[i, 0] = i
    for j in range(m + 1):
        d[0, j] = j
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m]


RNG = np.random.default_rng(0)
WORKLOADS = {
    "newton, range(1000) + break": (newton, (np.linspace(2.0, 4.0, 16), 1000)),
    "edit distance 60x60": (edit_distance, (RNG.integers(0, 4, 60), RNG.integers(0, 4, 60))),
}


def _per_call(fn, args, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn(*args)
    return (time.perf_counter() - start) / inner


def measure(fn, args, repeats: int, jit: bool) -> dict:
    f = ag.function(fn, jit_compile=jit)
    start = time.perf_counter()
    f(*args)
    first = time.perf_counter() - start
    lines = len(f.get_concrete_function(*args).python_code.splitlines())
    inner = max(1, int(0.02 / max(_per_call(fn, args, 1), 1e-6)))
    graph, eager = [], []
    for _ in range(repeats):
        graph.append(_per_call(f, args, inner))
        eager.append(_per_call(fn, args, inner))
    return {"first": first, "lines": lines, "graph": statistics.median(graph),
            "eager": statistics.median(eager),
            "ratio": statistics.median(g / e for g, e in zip(graph, eager))}


_FIRST_CALL = """
import sys, time
sys.path.insert(0, {here!r})
import numpy as np
import autograph as ag
from {module} import {name} as fn
rng = np.random.default_rng(0)
args = {args}
f = ag.function(fn)
start, cpu = time.perf_counter(), time.process_time()
f(*args)
print(time.perf_counter() - start, time.process_time() - cpu)
"""
FRESH = {
    "newton, range(1000) + break": ("bench_loops", "newton",
                                    "(np.linspace(2.0, 4.0, 16), 1000)"),
    "edit distance 60x60": ("bench_loops", "edit_distance",
                            "(rng.integers(0, 4, 60), rng.integers(0, 4, 60))"),
    "early return, range(xs.shape[0])": ("bench_jit_loops", "first_above",
                                         "(np.arange(10_000.0), 9_990.5)"),
    "early return, enumerate(xs)": ("bench_jit_loops", "first_above_enumerate",
                                    "(np.arange(10_000.0), 9_990.5)"),
}


def fresh_first_calls(n: int) -> None:
    """The first call of each FRESH workload in `n` fresh processes (see the docstring)."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(here), env.get("PYTHONPATH", "")])

    def once(module, name, args):
        code = _FIRST_CALL.format(here=here, module=module, name=name, args=args)
        out = subprocess.run([sys.executable, "-c", code], env=env, text=True,
                             capture_output=True, check=True).stdout.split()
        return float(out[-2]), float(out[-1])

    once(*FRESH["newton, range(1000) + break"])  # (fills the bytecode cache)
    print(f"\n{'first call in a fresh process':34} {'wall (median)':>14} {'CPU':>8}  all (wall)")
    for label, spec in FRESH.items():
        times = [once(*spec) for _ in range(n)]
        walls = [w for w, _ in times]
        print(f"{label:34} {statistics.median(walls) * 1e3:12.0f}ms "
              f"{statistics.median(c for _, c in times) * 1e3:6.0f}ms  "
              + " ".join(f"{w * 1e3:.0f}" for w in walls))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    parser.add_argument("--no-jit", action="store_true")
    parser.add_argument("--fresh", type=int, default=0, metavar="N",
                        help="also time first calls in N fresh processes")
    options = parser.parse_args()
    modes = [False] if options.no_jit else [False, True]
    print(f"{'workload':30} {'mode':5} {'first call':>11} {'lines':>6} {'per call':>10} "
          f"{'eager':>10} {'graph/eager':>12}")
    for name, (fn, args) in WORKLOADS.items():
        for jit in modes:
            if jit:
                try:
                    import numba  # noqa: F401
                except ImportError:
                    continue
            r = measure(fn, args, options.repeats, jit)
            print(f"{name:30} {'jit' if jit else 'graph':5} {r['first'] * 1e3:9.1f}ms "
                  f"{r['lines']:6d} {r['graph'] * 1e6:8.1f}us {r['eager'] * 1e6:8.1f}us "
                  f"{r['ratio']:12.2f}")
    if options.fresh:
        fresh_first_calls(options.fresh)


if __name__ == "__main__":
    main()
