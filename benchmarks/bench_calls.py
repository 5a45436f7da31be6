"""Per-call overhead by calling convention: medians measured side by side in one run.

Each row calls one small traced function (`x + y` on 4-element arrays) through one
calling convention and reports the median time per call, the overhead over calling the
same compiled executor directly, and that overhead as a multiple of the positional
row's (issue 25's target: at most 1 µs of overhead for every convention). The last
rows are functions that write into their arguments, against eager NumPy (medians of
paired ratios).

    python benchmarks/bench_calls.py [--repeats N] [--inner N] [--wall]

Times are the process's CPU time (`time.process_time`), so that other programs on a
shared machine slow a row less than wall time would show; `--wall` uses the wall clock.
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import autograph as ag

X = np.arange(4.0)
Y = np.ones(4)


def positional(x, y):
    return x + y


def defaults(x, y=None, scale=2.0, shift=0.0):
    return x * scale + shift


def keyword_only(x, *, y):
    return x + y


def var_args(x, *rest, **options):
    return x + rest[0]


def keyword_options(x, **options):
    return x + options["y"]


def named(x, name):
    return x + 1.0


def listed(xs):
    return xs[0] + xs[1]


class Model:
    def __init__(self):
        self.bias = 1.0

    @ag.function
    def forward(self, x, y):
        return x + y

    @ag.function(input_signature=[ag.TensorSpec((None,), np.float64)] * 2)
    def forward_sig(self, x, y):
        return x + y


def writes_into(x):
    x[0] = 5.0
    x += 1.0
    return x


def clip_into(x):
    np.minimum(x, 1.0, out=x)
    np.maximum(x, -1.0, out=x)
    return x


def momentum_into(p, v, g):
    v *= 0.9
    v += g
    p -= 0.01 * v
    return p


CLOCK = [time.process_time]


def _per_call(fn, inner: int) -> float:
    clock = CLOCK[0]
    start = clock()
    for _ in range(inner):
        fn()
    return (clock() - start) / inner


def rows(repeats: int, inner: int) -> list[tuple[str, float, float]]:
    """(name, median time per call, median time of the bare executor) per convention."""
    f_pos = ag.function(positional)
    f_def = ag.function(defaults)
    f_kw = ag.function(keyword_only)
    f_var = ag.function(var_args)
    f_sig = ag.function(positional, input_signature=[ag.TensorSpec((None,), np.float64)] * 2)
    f_opt = ag.function(keyword_options)
    f_named, f_list = ag.function(named), ag.function(listed)
    model = Model()
    bound = model.forward  # bound once, called many times
    cases = {
        "positional  f(x, y)": (lambda: f_pos(X, Y), f_pos, (X, Y), {}),
        "keyword     f(x, y=y)": (lambda: f_pos(X, y=Y), f_pos, (X, Y), {}),
        "defaults    f(x)": (lambda: f_def(X), f_def, (X,), {}),
        "defaults    f(x, scale=3.0)": (lambda: f_def(X, scale=3.0), f_def, (X,), {"scale": 3.0}),
        "kw-only     f(x, y=y)": (lambda: f_kw(X, y=Y), f_kw, (X,), {"y": Y}),
        "*args       f(x, y)": (lambda: f_var(X, Y), f_var, (X, Y), {}),
        "*args       f(x, y, flag=1)": (lambda: f_var(X, Y, flag=1), f_var, (X, Y), {"flag": 1}),
        "**kwargs    f(x, y=y)": (lambda: f_opt(X, y=Y), f_opt, (X,), {"y": Y}),
        "str         f(x, 'W')": (lambda: f_named(X, "W"), f_named, (X, "W"), {}),
        "list        f([x, y])": (lambda: f_list([X, Y]), f_list, ([X, Y],), {}),
        "method      m.forward(x, y)": (lambda: model.forward(X, Y), Model.forward,
                                        (model, X, Y), {}),
        "method      Model.forward(m, x, y)": (lambda: Model.forward(model, X, Y),
                                              Model.forward, (model, X, Y), {}),
        "method      bound once: b(x, y)": (lambda: bound(X, Y), Model.forward,
                                           (model, X, Y), {}),
        "method      with input_signature": (lambda: model.forward_sig(X, Y),
                                             Model.forward_sig, (model, X, Y), {}),
        "signature   f(x, y)": (lambda: f_sig(X, Y), f_sig, (X, Y), {}),
    }
    timed = {}
    for name, (call, function, args, kwargs) in cases.items():
        call()
        executor = function.get_concrete_function(*args, **kwargs)._fn
        bare = (lambda e=executor: e(X, Y)) if executor.__code__.co_argcount == 2 \
            else (lambda e=executor: e(X))
        timed[name] = (call, bare, [], [])
    for _ in range(repeats):  # round robin: a burst of load on the machine hits every row
        for call, bare, call_t, bare_t in timed.values():
            call_t.append(_per_call(call, inner))
            bare_t.append(_per_call(bare, inner))
    return [(name, statistics.median(c), statistics.median(b))
            for name, (_, _, c, b) in timed.items()]


WRITES = {"x[0] = 5.0; x += 1.0": (writes_into, 1),
          "np.minimum(x, 1, out=x); ...": (clip_into, 1),
          "v *= 0.9; v += g; p -= 0.01 * v": (momentum_into, 3)}


def writes_rows(repeats: int, inner: int) -> list[tuple[str, float, float, float]]:
    """(name, median graph time, median eager time, median of paired ratios) of
    functions writing into their arguments (small values: they stay finite)."""
    out = []
    for name, (fn, n) in WRITES.items():
        f = ag.function(fn)
        graph_args = [np.full(8, 1e-3) for _ in range(n)]
        eager_args = [np.full(8, 1e-3) for _ in range(n)]
        f(*graph_args)
        graph_t, eager_t = [], []
        for _ in range(repeats):
            graph_t.append(_per_call(lambda: f(*graph_args), inner))
            eager_t.append(_per_call(lambda: fn(*eager_args), inner))
        out.append((name, statistics.median(graph_t), statistics.median(eager_t),
                    statistics.median(g / e for g, e in zip(graph_t, eager_t))))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--inner", type=int, default=2000)
    parser.add_argument("--wall", action="store_true", help="time with the wall clock")
    options = parser.parse_args()
    if options.wall:
        CLOCK[0] = time.perf_counter
    table = rows(options.repeats, options.inner)
    base = table[0][1] - table[0][2]
    print(f"{'calling convention':32} {'per call':>10} {'overhead':>10} {'x positional':>13}")
    for name, t, bare in table:
        over = t - bare
        print(f"{name:32} {t * 1e6:8.2f}us {over * 1e6:8.2f}us {over / base:13.2f}")
    print(f"\n{'writes into its arguments':32} {'graph':>10} {'eager':>10} {'graph/eager':>13}")
    for name, graph, eager, ratio in writes_rows(options.repeats, options.inner):
        print(f"{name:32} {graph * 1e6:8.2f}us {eager * 1e6:8.2f}us {ratio:13.2f}")


if __name__ == "__main__":
    main()
