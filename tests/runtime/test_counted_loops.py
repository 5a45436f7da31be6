"""Counting loops and single-number ops in the default executor (runtime/exec/
counted_loops.py, scalar_forms.py): a `while_loop` that tests `i < n` and carries `i + 1`
runs as a Python `for`, and ops on single numbers are Python expressions. Every case
compares ag.function with plain Python on the same inputs (values, dtypes, result kinds,
the arrays the function writes), bitwise, and checks that the spelling it is about was
generated, so that a change of the executor cannot pass these tests by not using it."""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

RNG = np.random.default_rng(7)
XS = RNG.uniform(0, 1, size=300)
XS[200] = 2.0
EARLY = XS.copy()
EARLY[1] = 5.0  # found while the loop is still unrolled: the rolled rest never runs


def first_above_range(xs, threshold):
    for i in range(xs.shape[0]):
        if xs[i] > threshold:
            return i
    return -1


def first_above_enumerate(xs, threshold):
    for i, x in enumerate(xs):
        if x > threshold:
            return i
    return -1


def first_above_offset(xs, threshold):
    for i in range(3, xs.shape[0] - 2):
        if xs[i - 3] + xs[i + 2] > threshold:
            return i * 2 - 1
    return -1


def last_index(xs, t):
    total = xs[0] * 0
    for i in range(xs.shape[0]):  # noqa: B007 (read after the loop)
        if xs[i] > t:
            break
        total = total + xs[i] * i
    return i, total


def sum_while(xs, n):
    i, total = np.int64(0), xs[0] * 0
    while i < n:
        total = total + xs[i] * i
        i = i + np.int64(1)
    return i, total


def edit_distance(a, b):
    n, m = a.shape[0], b.shape[0]
    d = np.zeros((n + 1, m + 1), dtype=np.int64)
    d[:, 0] = np.arange(n + 1)
    d[0, :] = np.arange(m + 1)
    for i in range(1, n + 1):
        for j in range(1, m + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            d[i, j] = min(d[i - 1, j] + 1, d[i, j - 1] + 1, d[i - 1, j - 1] + cost)
    return d[n, m], d


def scaled_by_index(xs):
    out = np.zeros_like(xs)
    for i in range(xs.shape[0]):
        out[i] = xs[i] * i  # a Python int times a float32: float32
    return out


def count_while(xs, t):
    i = np.int64(0)  # the counter's final value is the result: int64 scalars throughout
    while i < xs.shape[0] and not xs[i] > t:
        i = i + np.int64(1)
    return i


def count_while_flag(xs, t, n):
    i = np.int64(0)
    done = False
    while i < n and not done:
        if xs[i] > t:
            done = True
        i = i + np.int64(1)
    return i, done


def min_of_scalars(xs):
    best = xs[0]
    for i in range(1, xs.shape[0]):
        best = min(best, xs[i] * 2 - 1)
    return best


def logical_scalars(xs, t):
    hits = 0
    for i in range(xs.shape[0]):
        if (xs[i] > t) and not (xs[i] > 2 * t):
            hits += 1
    return hits


def one_hot(labels, n_classes=5):
    out = np.zeros((labels.shape[0], n_classes))
    out[np.arange(labels.shape[0]), labels] = 1.0  # a copy of a constant, then the write
    return out


def swap_when(xs, t):
    lo, hi = xs[0], xs[1]
    for i in range(xs.shape[0]):
        if xs[i] > t:  # the branch assigns the loop's variables itself, swapped
            lo, hi = hi, lo + xs[i]
    return lo, hi


def previous_when(xs, t):
    prev, cur = xs[0], xs[1]
    for i in range(xs.shape[0]):
        prev = cur  # reads `cur` as the iteration found it: the branch must not assign it
        if xs[i] > t:
            cur = xs[i] * 2.0
    return prev, cur


CASES = [
    (swap_when, (XS, 0.5)),
    (previous_when, (XS, 0.5)),
    (one_hot, (RNG.integers(0, 5, 12),)),
    (first_above_range, (XS, 1.5)),
    (first_above_range, (XS, 3.0)),  # runs out: -1
    (first_above_range, (EARLY, 3.0)),
    (first_above_enumerate, (EARLY, 3.0)),
    (first_above_range, (XS[:40].astype(np.float32), np.float32(0.9))),
    (first_above_enumerate, (XS, 1.5)),
    (first_above_enumerate, (XS, 3.0)),
    (first_above_offset, (XS, 2.5)),
    (first_above_offset, (XS, 9.0)),
    (last_index, (XS, 1.5)),
    (last_index, (XS, 3.0)),
    (last_index, (XS[:40].astype(np.float32), -1.0)),
    (sum_while, (XS, np.int64(120))),
    (sum_while, (XS[:30].astype(np.float32), np.int64(30))),
    (sum_while, (XS, np.int64(-2))),  # no iteration: the initial np.int64(0)
    (edit_distance, (RNG.integers(0, 4, 30), RNG.integers(0, 4, 25))),
    (edit_distance, (RNG.integers(0, 3, 20), RNG.integers(0, 3, 1))),
    (scaled_by_index, (XS[:50].astype(np.float32),)),
    (scaled_by_index, (np.arange(11, dtype=np.int8),)),  # int8 * Python int: int8
    (count_while, (XS, 1.5)),
    (count_while, (XS, -1.0)),  # no iteration: the initial np.int64(0)
    (count_while, (XS, 3.0)),
    (count_while_flag, (XS, 1.5, np.int64(300))),
    (count_while_flag, (XS, 1.5, np.int64(0))),
    (count_while_flag, (XS, 3.0, np.int64(250))),
    (min_of_scalars, (XS[:60],)),
    (min_of_scalars, (np.arange(30, 0, -1),)),
    (logical_scalars, (XS[:80], 0.3)),
]


@pytest.mark.parametrize("fn, args", CASES, ids=[f"{c[0].__name__}-{i}" for i, c in
                                                  enumerate(CASES)])
def test_counting_loops_match_python(fn, args):
    f = ag.function(fn)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            assert_same(f(*args), fn(*args), rtol=0)


@pytest.mark.parametrize("fn, args, spelled", [
    (first_above_range, (XS, 1.5), "element in zip(range("),  # elements by iterating xs
    (first_above_enumerate, (XS, 1.5), "element in zip(range("),
    (sum_while, (XS, np.int64(120)), "in counting("),
    (one_hot, (RNG.integers(0, 5, 12),), ".copy('K')"),  # the final counter is read
    (edit_distance, (RNG.integers(0, 4, 30), RNG.integers(0, 4, 30)), "int64_0 + (v"),
    (min_of_scalars, (XS[:60],), " if "),
])
def test_the_executor_spells_counting_loops_and_scalars_in_python(fn, args, spelled):
    code = ag.function(fn).get_concrete_function(*args).python_code
    assert spelled in code
    assert "np_logical_and(" not in code and "exact_" not in code


def overflowing(n, start):
    total = start  # a Python int: exact, or OverflowError where int64 cannot hold it
    for i in range(n):
        total = total * 3 + i
    return total


@pytest.mark.parametrize("start", [1, 2**61])
def test_python_int_arithmetic_stays_checked(start):
    f = ag.function(overflowing)
    try:
        expected = overflowing(np.int64(40), start)
    except OverflowError:
        expected = OverflowError
    if expected is OverflowError or expected > np.iinfo(np.int64).max:
        with pytest.raises(OverflowError):
            f(np.int64(40), start)
    else:
        assert_same(f(np.int64(40), start), expected)


def test_a_condition_that_raises_at_the_end_still_raises():
    def walk(xs, n):
        i = np.int64(0)
        while i < n and xs[i] < 5.0:  # reads xs[n] when the count runs out
            i = i + np.int64(1)
        return i

    xs = np.ones(10)
    f = ag.function(walk)
    with pytest.raises(IndexError):
        walk(xs, np.int64(12))
    with pytest.raises(IndexError):
        f(xs, np.int64(12))
    assert_same(f(xs, np.int64(5)), walk(xs, np.int64(5)))


def reductions(x):
    return (np.max(x), np.sum(x, axis=0, keepdims=True), np.mean(x, axis=-1), np.std(x, ddof=1),
            np.min(x, axis=0), np.prod(x, dtype=np.float64), np.var(x, axis=0, keepdims=True),
            np.amax(x, axis=1), np.sum(x, dtype=np.float32))


@pytest.mark.parametrize("x", [
    RNG.normal(size=(5, 7)), RNG.normal(size=(300, 3)).astype(np.float32),
    np.array([[1.0, np.nan, -0.0], [0.0, np.inf, 2.0]]), RNG.integers(-9, 9, (4, 6)),
])
def test_reductions_spelled_as_methods_match_numpy(x):
    f = ag.function(reductions)
    assert ".max()" in f.get_concrete_function(x).python_code
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert_same(f(x), reductions(x), rtol=0)


def test_a_counter_read_shifted_is_counted_shifted():
    # rolled after a few unrolled iterations, the loop reads `i + s`: the `for` counts it
    code = ag.function(first_above_range).get_concrete_function(XS, 1.5).python_code
    assert re.search(r"= int\(\w+\) \+ \d+, int\(\w+\) \+ \d+", code)


def past_the_end(xs, n):
    total = xs[0] * 0
    for i in range(n):  # reads past the end of xs: IndexError, as in Python
        total = total + xs[i]
    return total


def test_a_loop_reading_past_the_end_raises_as_python_does():
    xs = np.arange(40.0)
    with pytest.raises(IndexError):
        past_the_end(xs, 50)
    f = ag.function(past_the_end)
    with pytest.raises(IndexError):
        f(xs, 50)
    assert_same(f(xs, 40), past_the_end(xs, 40))


def test_a_return_flag_is_tested_where_a_branch_sets_it():
    # once before the loop, then in the branch that returns, not at every iteration
    code = ag.function(first_above_enumerate).get_concrete_function(XS, 1.5).python_code
    assert re.search(r"if not [(bool]*\w+\)*:\n\s+ends = ", code)
    assert re.search(r"(\s+)\w+, \w+ = np_True, \w+\n\1if [(bool]*\w+\)*:\n\1    break", code)
