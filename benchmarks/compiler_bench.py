"""Compiler benchmark: `ag.to_code` line counts and median conversion time.

The four functions of issue 3; the TensorFlow figures are the ones quoted there
(`tf.autograph.to_code` prints 31, 44, 79 and 84 lines for them and takes 19-60 ms per
function; tf.function's first call of simple_relu takes about 35 ms) - TensorFlow is
not installed here, so they are not re-measured. Also measures the first call of a
decorated `simple_relu` (convert + trace + compile).

    python benchmarks/compiler_bench.py
"""
from __future__ import annotations

import statistics
import time

import numpy as np

import autograph as ag
from autograph.impl import api as impl


def simple_relu(x):
    if x > 0:
        return x
    return 0


def collatz(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def linear_search(xs, target):
    found = -1
    for i in range(len(xs)):
        if xs[i] < 0:
            continue
        if xs[i] == target:
            found = i
            break
    return found


def nested_early_return(m, t):
    for i in range(len(m)):
        for j in range(len(m[i])):
            if m[i, j] > t:
                return i * 100 + j
    return -1


TF_LINES = {"simple_relu": 31, "collatz": 44, "linear_search": 79, "nested_early_return": 84}


def median_ms(fn, repeat: int = 200) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def first_call_ms(repeat: int = 20) -> float:
    times = []
    for _ in range(repeat):
        impl._reset_caches()

        def relu(x):
            if x > 0:
                return x
            return 0
        f = ag.function(relu)
        t0 = time.perf_counter()
        f(np.float32(1.5))
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def main() -> None:
    print(f"{'function':22} {'lines':>5} {'TF':>4} {'ratio':>6} {'to_code ms (median)':>20}")
    for fn in (simple_relu, collatz, linear_search, nested_early_return):
        lines = len(ag.to_code(fn).splitlines())
        ms = median_ms(lambda fn=fn: ag.to_code(fn))
        name = fn.__name__
        print(f"{name:22} {lines:5d} {TF_LINES[name]:4d} {lines / TF_LINES[name]:6.2f} "
              f"{ms:20.3f}")
    print("TensorFlow's to_code: 19-60 ms per function (issue 3); target here: <= 2 ms")
    print(f"first call of a decorated simple_relu (convert + trace + compile): "
          f"{first_call_ms():.3f} ms (tf.function: ~35 ms)")


if __name__ == "__main__":
    main()
