"""Graph vs eager NumPy on the seed workloads; prints one table of medians and ratios.

    python benchmarks/run.py [--quick] [--only SUBSTR] [--no-first-calls]

Each workload is the same source run undecorated (eager NumPy) and through
`ag.function`, timed side by side in one process (medians of repeated batches; this
is a noisy 2-core machine, so read the ratios, not the absolute times). If JAX is
installed, a jax.jit column is added (see peers.py).
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
import peers  # noqa: E402
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


def interleaved(runs, number, repeat):
    """Seconds per call of each (fn, args) in `runs`, one list of `repeat` batches each,
    alternating their batches so drifts in machine load hit all alike, in reverse order
    every other round so that going first (or after a peer) favours no one."""
    for fn, args in runs:
        fn(*args)
    times = [[] for _ in runs]
    for round_ in range(repeat):
        order = list(zip(times, runs))
        for t, (fn, args) in order if round_ % 2 == 0 else order[::-1]:
            t.append(median_time(fn, args, number, 1))
    return times


def paired_ratio(times, base) -> tuple[float, float, float]:
    """Median and quartiles of the per-round ratios `times[i] / base[i]`: batches that ran
    back to back share the machine's state, so their ratio cancels most of its drift."""
    ratios = sorted(t / b for t, b in zip(times, base))
    q1, median, q3 = statistics.quantiles(ratios, n=4) if len(ratios) > 1 else ratios * 3
    return median, q1, q3


def _compiler_ready() -> bool:
    try:
        from autograph.impl import api  # noqa: F401
    except ImportError:
        return False
    return True


def _training_steps():
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
    import train_mlp

    x, y = train_mlp.make_data(n=64)
    graph_step = ag.function(train_mlp.make_step(train_mlp.MLP(), lr=0.0), autograph=False)
    eager_step = train_mlp.make_step(train_mlp.MLP(), lr=0.0)
    return graph_step, eager_step, (x, y)


def peak_memory(fn, args) -> int:
    """Peak bytes allocated during one call (NumPy reports its buffers to tracemalloc)."""
    import tracemalloc

    fn(*args)
    tracemalloc.start()
    fn(*args)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


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
    big = rng.standard_normal((1000, 1000)).astype(np.float32) * 0.001
    yield ("matmul loop x10, 1000x1000 float32 (seed)", w.matmul_loop,
           (big, big.copy(), big.copy()), 2, False)
    yield ("24-layer dense model, batch 1", model,
           (rng.standard_normal((1, 64)).astype(np.float32),), 2000, False)
    yield ("constants + repeated subexpressions, 64x64", w.normalise,
           (rng.standard_normal((64, 64)).astype(np.float32),), 2000, False)
    yield ("elementwise chain, 1M float64", w.elementwise_chain,
           (rng.standard_normal(1_000_000),), 10, False)
    yield ("two independent sorts of 1e6 float64, summed", w.independent_sorts,
           (rng.standard_normal(1_000_000), rng.standard_normal(1_000_000)), 5, False)
    step_graph, step_eager, batch = _training_steps()
    yield ("MLP training step with the tape (64, 32-64-10)", (step_eager, step_graph), batch,
           300, False)
    if _compiler_ready():
        yield ("Collatz while loop on an int64 (27)", w.collatz, (np.int64(27),), 500, True)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats (for smoke tests)")
    parser.add_argument("--only", default=None,
                        help="the workloads whose name has this (each row as in a full run)")
    parser.add_argument("--no-first-calls", action="store_true",
                        help="leave out the first calls in fresh processes")
    args = parser.parse_args(argv)
    repeat = 3 if args.quick else 15
    rows = []
    memory, overhead = (0, 0, 0), 0.0
    for name, fn, fargs, number, needs_conversion in workloads():
        if args.only and args.only not in name:
            continue
        number = max(1, number // 10) if args.quick else number
        if isinstance(fn, tuple):   # (eager, already-decorated) pair
            fn, graph = fn
        else:
            graph = ag.function(fn, autograph=needs_conversion)
        expected, got = fn(*fargs), graph(*fargs)
        np.testing.assert_allclose(np.asarray(got), np.asarray(expected), rtol=1e-4)
        extra = [jit_variant(fn, fargs, expected, needs_conversion)] + peers.peers(fn, fargs, expected)
        runs = [(fn, fargs), (graph, fargs)] + [r for r in extra if r is not None]
        times = iter(interleaved(runs, number, repeat))
        te, tg = next(times), next(times)
        rows.append((name, te, tg, [None if r is None else next(times) for r in extra]))
        if name.startswith("per-call"):
            overhead = statistics.median(g - e for g, e in zip(tg, te))
        if "1M" in name:
            memory = (peak_memory(fn, fargs), peak_memory(graph, fargs),
                      peak_memory(*extra[0]) if extra[0] else 0)
    width = max(len(r[0]) for r in rows)
    print(f"{'workload':<{width}}  {'eager':>10}  {'graph':>10}  {'graph/eager':>11}  "
          f"{'(quartiles)':>11}" + "".join(f"  {c:>10}  {c + '/eager':>13}" for c in COLUMNS))
    for name, te, tg, extra in rows:
        ratio, q1, q3 = paired_ratio(tg, te)
        print(f"{name:<{width}}  {_fmt(statistics.median(te)):>10}  "
              f"{_fmt(statistics.median(tg)):>10}  {ratio:>11.2f}  {f'{q1:.2f}-{q3:.2f}':>11}"
              + "".join(f"  {'-':>10}  {'-':>13}" if t is None else
                        f"  {_fmt(statistics.median(t)):>10}  {paired_ratio(t, te)[0]:>13.2f}"
                        for t in extra))
    print("\ngraph/eager and peer/eager: median of the ratios of batches run back to back; "
          "quartiles of those ratios beside it")
    if any(r[0].startswith("per-call") for r in rows):
        print(f"per-call overhead of a cached Function (graph call minus the op itself): "
              f"{_fmt(overhead)}")
    if any("1M" in r[0] for r in rows):
        print(f"peak memory of one call, 1M-element chain: eager {memory[0] / 2**20:.1f} MiB, "
              f"graph {memory[1] / 2**20:.1f} MiB, jit {memory[2] / 2**20:.1f} MiB")
    if not args.no_first_calls:
        first_call_costs()


COLUMNS = ["jit"] + list(peers.COLUMNS)  # jit: ag.function(..., jit_compile=True)


def jit_variant(fn, fargs, expected, needs_conversion: bool):
    """(fn, args) of the workload with `jit_compile=True`, or None (numba not installed, or
    a workload given as an already-decorated pair)."""
    try:
        import numba  # noqa: F401
    except ImportError:
        return None
    if isinstance(fn, tuple):
        return None
    jit = ag.function(fn, autograph=needs_conversion, jit_compile=True)
    np.testing.assert_allclose(np.asarray(jit(*fargs)), np.asarray(expected), rtol=1e-4)
    return jit, fargs


_FIRST_CALL = """
import sys, time
import numpy as np
sys.path.insert(0, {here!r})
import autograph as ag, workloads as w
from runtime.jit import set_cache_dir
set_cache_dir({cache!r})
x = {arg}
f = ag.function(w.{name}, jit_compile=True)
start = time.perf_counter()
f(x)
print(time.perf_counter() - start)
"""


def first_call_costs() -> None:
    """First call (trace + optimize + compile) with jit_compile=True in a fresh process:
    cold (empty cache directory) and warm (the directory a previous process filled)."""
    import subprocess
    import tempfile

    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PYTHONPATH=os.path.dirname(here))
    for name, arg in [("collatz", "np.int64(27)"), ("elementwise_chain", "np.ones(1_000_000)")]:
        with tempfile.TemporaryDirectory() as cache:
            code = _FIRST_CALL.format(here=here, cache=cache, arg=arg, name=name)
            times = [float(subprocess.run([sys.executable, "-c", code], env=env, text=True,
                                          capture_output=True, check=True).stdout.split()[-1])
                     for _ in range(2)]
        print(f"first call with jit_compile=True, {name}: cold cache {_fmt(times[0])}, "
              f"warm cache {_fmt(times[1])}")


def _fmt(seconds: float) -> str:
    if seconds < 1e-3:
        return f"{seconds * 1e6:.2f} µs"
    return f"{seconds * 1e3:.3f} ms"


if __name__ == "__main__":
    main()
