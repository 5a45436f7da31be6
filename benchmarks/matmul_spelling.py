"""Measure the spellings of a 2-D float matmul the executor chooses between.

    python benchmarks/matmul_spelling.py

For square float32/float64 operands of several sizes, times `a @ b`, `np.dot(a, b)`,
`np.matmul(a, b, o)` and `np.dot(a, b, o)` (`o` a spare C-contiguous buffer), in
alternating rounds, and prints the median of each per round. The thresholds in
`runtime/exec/spelling.py` were read from this table (see its docstring).
"""
from __future__ import annotations

import statistics
import time

import numpy as np

SIZES = (4, 8, 16, 32, 64, 96, 128, 192, 256, 512)


def _per_call(fn, number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        fn()
    return (time.perf_counter() - start) / number


def main() -> None:
    rng = np.random.default_rng(0)
    print(f"{'dtype':>8} {'n':>5} {'a @ b':>10} {'dot':>10} {'matmul out':>11} {'dot out':>10}  (µs)")
    for dtype in (np.float32, np.float64):
        for n in SIZES:
            a, b = (rng.standard_normal((n, n)).astype(dtype) for _ in range(2))
            o = np.empty((n, n), dtype)
            spellings = [lambda: a @ b, lambda: np.dot(a, b),
                         lambda: np.matmul(a, b, o), lambda: np.dot(a, b, o)]
            number = max(3, int(3e6 / n ** 3 * 20))
            times = [[] for _ in spellings]
            for round_ in range(9):
                order = list(zip(times, spellings))
                for t, fn in order if round_ % 2 == 0 else order[::-1]:
                    t.append(_per_call(fn, number))
            print(f"{np.dtype(dtype).name:>8} {n:>5} " + " ".join(
                f"{statistics.median(t) * 1e6:>10.2f}" for t in times))


if __name__ == "__main__":
    main()
