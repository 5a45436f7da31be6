"""Seeing the speed-up: the seeds' timing comparisons, eager NumPy against the graph.

Shows:
- `power(x, 100)`: 100 matrix products of 10x10 int32 matrices in a Python loop
  (unrolled while tracing into one straight-line graph);
- the matmul loop `s = s + (s @ y) * x` ten times on 256x256 float32 matrices;
- the first call of a Function pays for conversion + tracing + optimization + code
  generation; later calls run the compiled graph directly, so measure after it;
- the same code run undecorated (eager) and through `ag.function` give the same result.

Times are medians of interleaved batches; on a busy machine read the ratios, not the
absolute numbers. How much a graph helps depends on the computation: small programs
are dominated by per-call overhead, large ones by NumPy's own kernels.

Run:  python examples/speedup.py
"""
import statistics
import time

import numpy as np

import autograph as ag


def power(x, y):
    result = np.eye(10, dtype=np.int32)
    for _ in range(y):
        result = np.matmul(x, result)
    return result


def matmul_loop(x, y):
    s = np.zeros_like(x)
    s = s + np.matmul(x, y)
    for _ in range(10):
        s = s + np.matmul(s, y) * x
    return s


def per_call(fn, args, number):
    start = time.perf_counter()
    for _ in range(number):
        fn(*args)
    return (time.perf_counter() - start) / number


def fmt(seconds):
    return f"{seconds * 1e3:9.2f} ms" if seconds >= 1e-3 else f"{seconds * 1e6:9.1f} µs"


def compare(name, fn, args, number, repeat=5):
    graph_fn = ag.function(fn)
    start = time.perf_counter()
    graph_result = graph_fn(*args)  # the first call traces and compiles
    first = time.perf_counter() - start
    np.testing.assert_allclose(graph_result, fn(*args), rtol=1e-5)
    eager, graph = [], []
    for _ in range(repeat):  # interleaved, so load changes hit both alike
        eager.append(per_call(fn, args, number))
        graph.append(per_call(graph_fn, args, number))
    e, g = statistics.median(eager), statistics.median(graph)
    print(f"{name}\n  first graph call (trace + compile): {fmt(first)}"
          f"\n  eager: {fmt(e)}/call\n  graph: {fmt(g)}/call   (graph/eager = {g / e:.2f})")


rng = np.random.default_rng(0)
x = rng.integers(-1, 2, size=(10, 10)).astype(np.int32)
compare("power(x, 100), 10x10 int32", power, (x, 100), number=100)

SIZE = 256
a = rng.uniform(-0.01, 0.01, (SIZE, SIZE)).astype(np.float32)
b = rng.uniform(-0.01, 0.01, (SIZE, SIZE)).astype(np.float32)
compare(f"matmul loop x10, {SIZE}x{SIZE} float32", matmul_loop, (a, b), number=5)
