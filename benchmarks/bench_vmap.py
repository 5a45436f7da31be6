"""vmap benchmark: medians of paired ratios, measured side by side in one run.

1. A per-example function on small arrays at batch 1024: `ag.vmap(f)` against a Python
   loop of `ag.function(f)` calls (issue 23's target: >= 20x faster) and against the same
   computation batched by hand in NumPy (target: <= 1.5x its time).
2. Per-example gradients of the README's MLP (32 -> 64 -> 10) at batch 64, `ag.vmap` of a
   gradient, against one batched gradient of the mean loss (target: <= 3x).
3. A batched Newton solve (per-example trip counts) against the hand-written masked NumPy
   loop (target: <= 1.5x).

    python benchmarks/bench_vmap.py [--repeats N] [--cpu-time]

`--cpu-time` times with the process's CPU time instead of the wall clock: on a machine
shared with other work, preemption then does not land in one side of a pair (run it
with OPENBLAS_NUM_THREADS=1, so that BLAS threads waiting for a core count nothing).
"""
from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import autograph as ag

RNG = np.random.default_rng(0)


CLOCK = [time.perf_counter]


def _time(fn, *args, inner: int = 1) -> float:
    start = CLOCK[0]()
    for _ in range(inner):
        fn(*args)
    return (CLOCK[0]() - start) / inner


def paired(a, b, args, repeats: int, inner_a: int = 1, inner_b: int = 1):
    """(median time of a, median time of b, median of the paired ratios a / b)."""
    a(*args), b(*args)  # warm up (traces)
    ta, tb = [], []
    for _ in range(repeats):
        ta.append(_time(a, *args, inner=inner_a))
        tb.append(_time(b, *args, inner=inner_b))
    ratios = [x / y for x, y in zip(ta, tb)]
    return statistics.median(ta), statistics.median(tb), statistics.median(ratios)


# -- 1. a per-example function ------------------------------------------------------------
W1 = RNG.normal(size=(8, 16)) / 3
W2 = RNG.normal(size=(16, 4)) / 4


def per_example(x):
    h = np.tanh(x @ W1)
    y = h @ W2
    return np.sum(np.exp(y - np.max(y))) + np.sqrt(np.sum(x * x))


def by_hand(xs):
    h = np.tanh(xs @ W1)
    y = h @ W2
    return np.sum(np.exp(y - np.max(y, axis=1, keepdims=True)), axis=1) + \
        np.sqrt(np.sum(xs * xs, axis=1))


# -- 2. per-example gradients of the README's MLP -------------------------------------------
P = [RNG.normal(0, 1 / np.sqrt(32), (32, 64)).astype(np.float32), np.zeros(64, np.float32),
     RNG.normal(0, 1 / 8, (64, 10)).astype(np.float32), np.zeros(10, np.float32)]


def mlp_loss(x, y, w1, b1, w2, b2):
    logits = np.tanh(x @ w1 + b1) @ w2 + b2
    m = np.max(logits, axis=-1, keepdims=True)
    log_probs = logits - m - np.log(np.sum(np.exp(logits - m), axis=-1, keepdims=True))
    return -np.mean(np.sum(y * log_probs, axis=-1))


def example_grad(x, y, w1, b1, w2, b2):
    params = [w1, b1, w2, b2]
    with ag.GradientTape() as tape:
        tape.watch(params)
        loss = mlp_loss(x, y, *params)
    return tape.gradient(loss, params)


@ag.function
def batched_grad(xs, ys, w1, b1, w2, b2):
    return example_grad(xs, ys, w1, b1, w2, b2)


# -- 3. a batched Newton solve ---------------------------------------------------------------
def newton_cbrt(a):
    x = a
    i = 0
    while np.abs(x * x * x - a) > 1e-10 * a and i < 100:
        x = x - (x * x * x - a) / (3.0 * x * x)
        i += 1
    return x


def masked_newton(a):
    x = a.copy()
    running = np.abs(x * x * x - a) > 1e-10 * a
    i = 0
    while running.any() and i < 100:
        new = x - (x * x * x - a) / (3.0 * x * x)
        x = np.where(running, new, x)
        running &= np.abs(x * x * x - a) > 1e-10 * a
        i += 1
    return x


def main(repeats: int) -> None:
    rows = []
    xs = RNG.normal(size=(1024, 8))
    vf, f = ag.vmap(per_example), ag.function(per_example)
    assert np.array_equal(vf(xs), np.stack([f(x) for x in xs]))

    def loop(xs):
        return np.stack([f(x) for x in xs])
    t_loop, t_vmap, r = paired(loop, vf, (xs,), repeats, inner_b=20)
    rows.append(("per-example fn, batch 1024: Python loop of calls / vmap", t_loop, t_vmap, r,
                 ">= 20"))
    t_vmap, t_hand, r = paired(vf, by_hand, (xs,), repeats, inner_a=20, inner_b=20)
    rows.append(("per-example fn, batch 1024: vmap / hand-batched NumPy", t_vmap, t_hand, r,
                 "<= 1.5"))

    xb = RNG.normal(size=(64, 32)).astype(np.float32)
    yb = np.eye(10, dtype=np.float32)[RNG.integers(0, 10, 64)]
    per_grads = ag.vmap(example_grad, in_axes=(0, 0, None, None, None, None))
    t_per, t_one, r = paired(per_grads, batched_grad, (xb, yb, *P), repeats, 20, 20)
    rows.append(("MLP grads, batch 64: per-example (vmap) / one batched", t_per, t_one, r,
                 "<= 3"))

    a = RNG.uniform(0.001, 1000.0, size=1024)
    vn = ag.vmap(newton_cbrt)
    np.testing.assert_allclose(vn(a), masked_newton(a), rtol=1e-12)
    t_v, t_m, r = paired(vn, masked_newton, (a,), repeats, 5, 5)
    rows.append(("Newton cbrt, batch 1024: vmap / masked NumPy", t_v, t_m, r, "<= 1.5"))

    print(f"{'case':58} {'A':>10} {'B':>10} {'A/B (median)':>13} {'target':>7}")
    for name, ta, tb, ratio, target in rows:
        print(f"{name:58} {ta * 1e6:8.1f}us {tb * 1e6:8.1f}us {ratio:13.2f} {target:>7}")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=15)
    parser.add_argument("--cpu-time", action="store_true")
    options = parser.parse_args()
    if options.cpu_time:
        CLOCK[0] = time.process_time
    main(options.repeats)
