"""`jit_compile=True` on loops over array elements, against eager NumPy and plain
`numba.njit` of the same code (and jax.jit where installed), measured side by side in
one run: medians of paired per-call ratios.

Rows (issue 25's targets: edit distance jit <= 2x plain numba.njit; the early return
over 10,000 elements jit <= 0.2x eager; Collatz with `steps = 0` jit <= 0.5x jax.jit):
- edit distance over two 60-element integer arrays (`for i in range(len(a))`, nested);
- `for i in range(xs.shape[0]): if xs[i] > t: return i` over 10,000 floats (found at the
  end), and the same with `for i, x in enumerate(xs)`;
- Collatz of 27 with a Python-int step counter (`steps = 0`).

    python benchmarks/bench_jit_loops.py [--repeats N]
"""
from __future__ import annotations

import argparse
import statistics
import time
import warnings

import numpy as np

import autograph as ag
from bench_loops import edit_distance


def first_above(xs, t):
    for i in range(xs.shape[0]):
        if xs[i] > t:
            return i
    return -1


def first_above_enumerate(xs, t):
    for i, x in enumerate(xs):
        if x > t:
            return i
    return -1


def collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


RNG = np.random.default_rng(0)
WORKLOADS = {
    "edit distance 60x60": (edit_distance, (RNG.integers(0, 4, 60), RNG.integers(0, 4, 60))),
    "early return, range(n)": (first_above, (np.arange(10_000.0), 9_990.5)),
    "early return, enumerate(xs)": (first_above_enumerate, (np.arange(10_000.0), 9_990.5)),
    "collatz(27), steps = 0": (collatz, (np.int64(27),)),
}


def _per_call(fn, args, inner: int) -> float:
    start = time.perf_counter()
    for _ in range(inner):
        fn(*args)
    return (time.perf_counter() - start) / inner


def _jax_collatz():
    """Collatz as a jax user writes it: `lax.while_loop` over (n, steps), jitted."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None
    jax.config.update("jax_enable_x64", True)  # int64, as the NumPy input

    def body(state):
        n, steps = state
        return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), steps + 1

    return jax.jit(lambda n: jax.lax.while_loop(lambda s: s[0] > 1, body, (n, 0))[1])


def peers(name: str, fn, args: tuple) -> dict:
    """{column: (callable, its arguments)}: each peer called as its users call it (jax
    on its own device arrays, put there once; its results waited for)."""
    import numba

    out = {"eager": (fn, args), "numba": (numba.njit(fn), args)}
    if name.startswith("collatz"):
        jax_fn = _jax_collatz()
        if jax_fn is not None:
            import jax
            out["jax.jit"] = (lambda *a: jax.block_until_ready(jax_fn(*a)),
                              tuple(jax.device_put(a) for a in args))
    return out


def measure(name: str, fn, args, repeats: int) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jit = ag.function(fn, jit_compile=True)
        start = time.perf_counter()
        jit(*args)
        first = time.perf_counter() - start
    others = peers(name, fn, args)
    for f, a in others.values():
        f(*a)  # compiled before timing
    assert all(np.asarray(f(*a)) == np.asarray(jit(*args)) for f, a in others.values())
    inner = max(1, int(0.02 / max(_per_call(jit, args, 1), 1e-7)))
    times = {k: [] for k in ["jit", *others]}
    for _ in range(repeats):
        times["jit"].append(_per_call(jit, args, inner))
        for k, (f, a) in others.items():
            times[k].append(_per_call(f, a, inner))
    row = {"first": first, "jit": statistics.median(times["jit"])}
    for k in others:
        row[k] = statistics.median(times[k])
        row[f"jit/{k}"] = statistics.median(j / o for j, o in zip(times["jit"], times[k]))
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=11)
    options = parser.parse_args()
    print(f"{'workload':30} {'first call':>11} {'jit':>9} {'eager':>10} {'numba':>9} "
          f"{'jit/eager':>10} {'jit/numba':>10} {'jit/jax':>8}")
    for name, (fn, args) in WORKLOADS.items():
        r = measure(name, fn, args, options.repeats)
        jax_ratio = f"{r['jit/jax.jit']:8.2f}" if "jax.jit" in r else f"{'n/a':>8}"
        print(f"{name:30} {r['first'] * 1e3:9.0f}ms {r['jit'] * 1e6:7.1f}us "
              f"{r['eager'] * 1e6:8.1f}us {r['numba'] * 1e6:7.2f}us {r['jit/eager']:10.3f} "
              f"{r['jit/numba']:10.2f} {jax_ratio}")


if __name__ == "__main__":
    main()
