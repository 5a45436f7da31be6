"""Loop rolling: a `for` over a long Python `range` whose body computes symbolic values is
traced as one graph loop once its variables' types are stable. Every case compares
Python, ag.function and ag.function(jit_compile=True) on the same inputs (values, dtype,
result types), and checks that the executor does not grow with the trip count."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.operators.rolling import ROLL_AFTER, WARN_AFTER, LoopUnrollWarning


def newton(x0, max_iter, tol=1e-10):
    x = x0
    for i in range(max_iter):  # noqa: B007 (i is read after the loop)
        fx = x * x * x - 2.0 * x - 5.0
        dx = fx / (3.0 * x * x - 2.0)
        x = x - dx
        if np.max(np.abs(dx)) < tol:
            break
    return x, i


def accumulate(x, n):
    total = x * 0.0
    count = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        total = total + x * i
        count += 1
    return total, count, i


def with_else(x, n, limit):
    for _ in range(2, n):
        x = x * 1.5 - 0.25
        if np.sum(x) > limit:
            break
    else:
        x = -x
    return x


def early_return(xs, n, target):
    for i in range(n):
        if xs[i % xs.shape[0]] > target:
            return i, xs[i % xs.shape[0]]
    return -1, xs[0]


def nested(x, n, m):
    total = np.float64(0.0)
    for i in range(n):
        for j in range(1, m, 2):
            total = total + np.sum(x) * (i - j)
        x = x * 0.5
    return total, x


def nested_break(x, n):
    total = 0.0
    for i in range(n):
        for j in range(n):
            if np.sum(x) * j > 40 + i:
                break
            total = total + j
        x = x + 0.1
    return total, x, i, j


def fixed_list(x, n):
    acc = [x, x * 2]
    for _ in range(n):
        acc = [acc[1], acc[0] + acc[1] * 0.5]
    return acc


def random_walk(seed, n):
    rng = np.random.default_rng(seed)
    s = np.zeros(3)
    for _ in range(n):
        s = s + rng.normal(size=3)
    return s


def index_after_loop(x, n):
    for i in range(n):  # noqa: B007 (i is read after the loop)
        x = np.sin(x) * 0.5 + np.cos(x) / 3.0 - np.tanh(x) * 0.25 + 0.1
    return x, [0.0] * (i + 1), i


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


RNG = np.random.default_rng(7)
X2 = np.array([3.0, 2.5])
XS = RNG.normal(size=50)
AB = (RNG.integers(0, 4, 30), RNG.integers(0, 4, 25))

CASES = [
    (newton, (X2, 1000)),
    (newton, (np.array([np.nan, 3.0]), 200)),
    (accumulate, (X2, 40)),
    (with_else, (X2, 50, 1e6)),
    (with_else, (X2, 50, 1e300)),
    (early_return, (XS, 200, 2.0)),
    (early_return, (XS, 200, 50.0)),
    (nested, (X2, 30, 40)),
    (nested_break, (np.ones(2), 30)),
    (fixed_list, (X2, 40)),
    (random_walk, (3, 50)),
    (index_after_loop, (X2, 300)),
    (edit_distance, AB),
]


def _same(got, expected, exact_types=True):
    if isinstance(expected, tuple):
        assert type(got) is tuple and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e, exact_types)
        return
    if exact_types:
        assert type(got) is type(expected), (type(got), type(expected))
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    np.testing.assert_array_equal(got, expected)


@pytest.mark.filterwarnings("ignore::UserWarning:runtime.jit")
@pytest.mark.parametrize("fn, args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in
                                                  enumerate(CASES)])
@pytest.mark.parametrize("jit", [False, True])
def test_rolled_loops_match_python(fn, args, jit):
    if jit:
        pytest.importorskip("numba")
    expected = fn(*args)
    f = ag.function(fn, jit_compile=jit)
    # known, not about rolling: a Python int merged by a symbolic `if`/`return` (the
    # `return -1` after the loop) comes back as a 0-d array, unrolled or not
    exact_types = not (fn is early_return and args[2] > np.max(args[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", LoopUnrollWarning)
        for _ in range(2):
            _same(f(*args), expected, exact_types)


@pytest.mark.parametrize("fn, small, large", [
    (newton, (X2, 100), (X2, 3000)),
    (accumulate, (X2, 1500), (X2, 5000)),
    (nested_break, (np.ones(2), 200), (np.ones(2), 400)),
])
def test_the_executor_does_not_grow_with_the_trip_count(fn, small, large):
    f = ag.function(fn)
    lines = [len(f.get_concrete_function(*args).python_code.splitlines())
             for args in (small, large)]
    assert lines[0] == lines[1]
    _same(f(*large), fn(*large))


def test_short_loops_stay_unrolled():
    f = ag.function(accumulate)
    code = f.get_concrete_function(X2, ROLL_AFTER).python_code
    assert "while" not in code
    _same(f(X2, ROLL_AFTER), accumulate(X2, ROLL_AFTER))


def grows_a_list(x, n):
    out = []
    for i in range(n):
        out.append(x * i)
    return np.stack(out)


def needs_python_index(x, n):
    scales = [float(k) for k in range(n)]
    for i in range(n):  # enough ops per iteration to be worth rolling
        x = np.tanh(x * 0.5 + scales[i]) * 2.0 - np.sin(x) + np.cos(x * x) / 3.0
    return x


@pytest.mark.parametrize("fn", [grows_a_list, needs_python_index])
def test_a_loop_that_cannot_roll_unrolls_and_warns_once(fn):
    f = ag.function(fn)
    with pytest.warns(LoopUnrollWarning, match="unrolled into the graph") as record:
        got = f(X2, WARN_AFTER + 5)
    assert len([w for w in record if w.category is LoopUnrollWarning]) == 1
    assert record[0].filename == __file__
    _same(got, fn(X2, WARN_AFTER + 5))


def test_a_python_only_loop_neither_rolls_nor_warns():
    def table(x, n):
        squares = [k * k for k in range(3)]
        acc = 0
        for i in range(n):
            acc += i * squares[i % 3]
        return x + acc

    f = ag.function(table)
    with warnings.catch_warnings():
        warnings.simplefilter("error", LoopUnrollWarning)
        _same(f(X2, 500), table(X2, 500))
