"""What a call costs in converted code run on Python values (`ag.to_graph`), by callee.

Each row is a function making ten calls of one kind, in straight-line code (no branch or
loop, so only the calls differ). It runs converted and as written, alternating. The table
shows the median of the paired ratios (converted / original) and the median extra time
per call in microseconds.

    python benchmarks/bench_converted_calls.py [--repeats N] [--inner N]
"""
from __future__ import annotations

import argparse
import statistics
import time
from math import sqrt

import autograph as ag


def user(v):
    return v


class Box:
    def fetch(self, v):
        return v


BOX = Box()
XS = [1, 2, 3]


def ten_user_calls(v):
    return (user(v) + user(v) + user(v) + user(v) + user(v) +
            user(v) + user(v) + user(v) + user(v) + user(v))


def ten_method_calls(v):
    b = BOX
    return (b.fetch(v) + b.fetch(v) + b.fetch(v) + b.fetch(v) + b.fetch(v) +
            b.fetch(v) + b.fetch(v) + b.fetch(v) + b.fetch(v) + b.fetch(v))


def ten_builtin_calls(v):  # `sqrt` is a global name: decided when the call runs
    return (sqrt(v) + sqrt(v) + sqrt(v) + sqrt(v) + sqrt(v) +
            sqrt(v) + sqrt(v) + sqrt(v) + sqrt(v) + sqrt(v))


def ten_len_calls(v):
    xs = XS
    return (len(xs) + len(xs) + len(xs) + len(xs) + len(xs) +
            len(xs) + len(xs) + len(xs) + len(xs) + len(xs) + v)


ROWS = [("function (user code)", ten_user_calls), ("bound method", ten_method_calls),
        ("builtin (math.sqrt)", ten_builtin_calls), ("len", ten_len_calls)]


def _time(fn, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn(4.0)
    return (time.perf_counter() - start) / inner


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--inner", type=int, default=2000)
    args = parser.parse_args()
    print(f"{'callee':24s} {'converted/original':>19s} {'extra us per call':>18s}")
    for name, fn in ROWS:
        converted = ag.to_graph(fn)
        assert converted(4.0) == fn(4.0)
        ratios, extra = [], []
        for _ in range(args.repeats):
            t_conv, t_orig = _time(converted, args.inner), _time(fn, args.inner)
            ratios.append(t_conv / t_orig)
            extra.append((t_conv - t_orig) / 10 * 1e6)
        print(f"{name:24s} {statistics.median(ratios):19.2f} {statistics.median(extra):18.3f}")


if __name__ == "__main__":
    main()
