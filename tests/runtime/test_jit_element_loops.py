"""jit_compile=True on loops over array elements: indexing and element writes (integer,
negative, static-slice and boolean-mask indices), shape reads, Python-number state
(exact ints: overflow raises as in the default executor), tuples, and loops and
branches carrying arrays become one numba function. Three-way: eager Python/NumPy,
the default executor and jit_compile=True on the same inputs (values, dtypes, result
types, the arguments' state after the call, warnings and errors)."""
from __future__ import annotations

import copy
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.jit import JitFallbackWarning
from tests.runtime.jit_harness import assert_bitwise, check_jit, compiled_regions, outcome

DTYPES = ["int32", "int64", "float32", "float64", "bool"]


def _call(fn, args):
    args = copy.deepcopy(args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(*args), args
        except Exception as e:  # noqa: BLE001 - compared across the three
            return e, args


def _same(actual, expected):
    if isinstance(expected, BaseException):
        assert type(actual) is type(expected), (actual, expected)
        return
    if isinstance(expected, tuple):
        assert isinstance(actual, tuple) and len(actual) == len(expected)
        for a, e in zip(actual, expected):
            _same(a, e)
        return
    assert type(actual) is type(expected), (type(actual), type(expected))
    assert_bitwise(actual, expected)


def three_way(fn, *args, compiled=True, **options):
    """eager == graph (values, types, arguments after the call), graph == jit bitwise
    (also under errstate raise/ignore, with the same warnings and the same arguments
    after the call); returns the jit result."""
    eager, eager_args = _call(fn, args)
    graph_fn = ag.function(fn, **options)
    graph, graph_args = _call(graph_fn, args)
    _same(graph, eager)
    _same(tuple(graph_args), tuple(eager_args))
    jit_fn = ag.function(fn, jit_compile=True, **options)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitFallbackWarning)
        jit, jit_args = _call(jit_fn, args)
        _same(jit, graph)
        _same(tuple(jit_args), tuple(graph_args))
        for state in (None, "raise", "ignore"):
            expected_args, actual_args = copy.deepcopy(args), copy.deepcopy(args)
            expected, expected_notes = outcome(graph_fn, expected_args, state)
            actual, actual_notes = outcome(jit_fn, actual_args, state)
            assert_bitwise(actual, expected)
            assert actual_notes == expected_notes
            assert_bitwise(tuple(actual_args), tuple(expected_args))
    if compiled:
        assert compiled_regions(jit_fn, *args) >= 1
    return jit


def _no_fallback(fn, *args, **options):
    """Every op with a value is compiled: no JitFallbackWarning for this trace."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        ag.function(fn, jit_compile=True, **options)(*copy.deepcopy(args))
    notes = [str(w.message) for w in seen if w.category is JitFallbackWarning]
    assert not notes, notes


# -- reading elements ---------------------------------------------------------------

def first_above(xs, t):
    for i in range(xs.shape[0]):
        if xs[i] > t:
            return i
    return -1


def first_above_with_value(xs, t):
    for i in range(xs.shape[0]):
        if xs[i] > t:
            return i, xs[i]
    return -1, xs[0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_early_return_reads_elements_in_one_compiled_loop(dtype):
    xs = (np.arange(300) % 7).astype(dtype)
    for t in (np.asarray(0, dtype)[()], np.asarray(5, dtype)[()], np.asarray(9, dtype)[()]):
        three_way(first_above, xs, t)
    _no_fallback(first_above, xs, xs[3])


def test_early_return_over_zero_elements_and_a_tuple_result():
    three_way(first_above, np.zeros(0), 0.5, compiled=False)  # no loop left to compile
    xs = np.linspace(0, 1, 50, dtype=np.float32)
    three_way(first_above_with_value, xs, np.float32(0.5))
    three_way(first_above_with_value, xs, np.float32(2.0))


def first_above_unknown_length(xs, t):
    n = xs.shape[0]  # unknown while tracing: a shape read when the graph runs
    i = 0
    while i < n:
        if xs[i] > t:
            return i
        i += 1
    return -1


def test_shape_reads_of_an_unknown_length():
    spec = [ag.TensorSpec([None], np.float64), ag.TensorSpec([], np.float64)]
    for xs in (np.arange(40.0), np.zeros(0), np.arange(7.0)):
        three_way(first_above_unknown_length, xs, np.float64(5.5), input_signature=spec)


def sum_at(x, idx):
    total = x.dtype.type(0)
    for k in range(idx.shape[0]):
        total = total + x[idx[k]]
    return total


@pytest.mark.parametrize("dtype", ["int32", "int64", "float32", "float64"])
def test_negative_and_out_of_bounds_indices(dtype):
    x = np.arange(10).astype(dtype) * 3
    three_way(sum_at, x, np.array([0, 9, -1, -10, 4], np.int64))
    three_way(sum_at, x, np.array([1, 2, 3, 4, 5, 6, 10], np.int64))  # IndexError
    three_way(sum_at, x, np.array([1, 2, 3, 4, 5, 6, -11, 2], np.int32))  # IndexError
    three_way(sum_at, x, np.zeros(0, np.int64), compiled=False)


def index_checked_in_one_branch(x, idx, flags):
    total = x[0]
    for k in range(idx.shape[0]):
        i = idx[k]
        if flags[k]:
            total = total + x[i]      # the index is checked here...
        total = total + x[i - 1]      # ...and `i - 1` on every path
        if not flags[k]:
            total = total + x[i]      # so this one must be checked again
    return total


def test_an_index_checked_on_one_path_is_checked_on_the_others():
    x = np.arange(10.0)
    idx = np.array([1, 5, 9, 10], np.int64)
    three_way(index_checked_in_one_branch, x, idx, np.array([True, False, True, True]))
    three_way(index_checked_in_one_branch, x, idx, np.array([True, False, True, False]))


def trace_2d(m, steps):
    i, total = 0, m[0, 0]
    while i < steps:
        total = total + m[i % m.shape[0], -1 - i % m.shape[1]]
        i += 1
    return total


@pytest.mark.parametrize("dtype", DTYPES[:4])
def test_two_dimensional_reads(dtype):
    m = np.arange(35).reshape(5, 7).astype(dtype)
    three_way(trace_2d, m, np.int64(23))
    _no_fallback(trace_2d, m, np.int64(23))


# -- writing elements -----------------------------------------------------------------

def prefix_sums(xs):
    out = np.zeros_like(xs)
    acc = xs[0]
    for i in range(1, xs.shape[0]):
        out[i - 1] = acc
        acc = acc + xs[i]
    out[-1] = acc
    return out


@pytest.mark.parametrize("dtype", DTYPES)
def test_element_writes_into_a_carried_array(dtype):
    xs = (np.arange(200) % 5).astype(dtype)
    three_way(prefix_sums, xs)
    _no_fallback(prefix_sums, xs)


def reverse_in_place(x):
    n = x.shape[0]
    for i in range(n // 2):
        a = x[i]
        b = x[-1 - i]
        x[i] = b
        x[-1 - i] = a
    return x


@pytest.mark.parametrize("dtype", DTYPES)
def test_writes_into_the_argument_reach_the_caller(dtype):
    three_way(reverse_in_place, (np.arange(51) % 4).astype(dtype))


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


def test_edit_distance_is_one_compiled_region():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 3, 12), rng.integers(0, 3, 9)
    jit = three_way(edit_distance, a, b)
    assert jit == edit_distance(a, b)
    _no_fallback(edit_distance, a, b)


def store_python_ints(x, values):
    for k in range(values.shape[0]):
        v = int(values[k])       # a Python int: NumPy refuses one out of x's range
        x[k % x.shape[0]] = v * 1000
    return x


def test_writes_of_python_ints_out_of_range_raise_as_numpy_does():
    three_way(store_python_ints, np.zeros(3, np.int32), np.array([1, 2, 3, 4]))
    three_way(store_python_ints, np.zeros(3, np.int32), np.array([1, 5_000_000]))
    three_way(store_python_ints, np.zeros(3, np.float32), np.array([1, 2 ** 40]))


def rotate_left(x, k):
    i = 0
    while i < k:
        first = x[0]
        x[:-1] = x[1:]
        x[-1] = first
        i += 1
    return x


@pytest.mark.parametrize("dtype", DTYPES)
def test_static_slices_read_and_write(dtype):
    three_way(rotate_left, (np.arange(9) % 4).astype(dtype), np.int64(4))


def masked_fill(x, mask, n):
    seen = np.float64(0.0)
    for i in range(n):
        x[mask] = i
        picked = x[mask]
        if picked.shape[0] > 0:  # a length known when the graph runs
            seen = seen + picked[0] * picked[-1]
    return x, seen


def test_boolean_mask_writes_and_reads():
    x = np.arange(12, dtype=np.float64).reshape(3, 4)
    three_way(masked_fill, x, x % 3 == 0, np.int64(5))
    three_way(masked_fill, x, np.zeros((3, 4), bool), np.int64(3))


# -- Python-number state ----------------------------------------------------------------

def collatz(n):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


@pytest.mark.parametrize("n", [27, 1, 97, 2 ** 40 + 1])
def test_collatz_with_a_python_int_counter_compiles(n):
    result = three_way(collatz, np.int64(n))
    assert type(result) is int
    _no_fallback(collatz, np.int64(n))


def power_of_three(n):
    acc = 1
    k = 0
    while k < n:
        acc = acc * 3
        k += 1
    return acc


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a, b


def test_python_ints_never_wrap():
    assert three_way(power_of_three, np.int64(39)) == 3 ** 39
    # beyond int64: Python is exact, the graph refuses to wrap (OverflowError), and so
    # does the compiled loop (its guard reruns the loop on NumPy, which raises)
    graph = ag.function(power_of_three)
    jit = ag.function(power_of_three, jit_compile=True)
    for f in (graph, jit):
        with pytest.raises(OverflowError, match="does not fit int64"):
            f(np.int64(40))
    check_jit(power_of_three, np.int64(40))
    assert three_way(fib, np.int64(91)) == fib(91)
    check_jit(fib, np.int64(92))  # a + b leaves int64 at the last step


def ratios(x, y):
    acc = 0.0
    for i in range(x.shape[0]):
        acc = acc + x[i] / y[i]
    return acc


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_division_by_zero_warns_or_raises_as_the_default_executor(dtype):
    x = np.arange(1, 8).astype(dtype)
    three_way(ratios, x, x[::-1].copy())
    y = x.copy()
    y[3] = 0
    three_way(ratios, x, y)   # check_jit: the same warning, FloatingPointError under raise
    y[3] = np.nan
    three_way(ratios, x, y)


def bubble_sort(x):
    n = x.shape[0]
    swapped = True
    while swapped:
        swapped = False
        for i in range(n - 1):
            if x[i] > x[i + 1]:
                t = x[i]
                x[i] = x[i + 1]
                x[i + 1] = t
                swapped = True
    return x


@pytest.mark.parametrize("dtype", DTYPES)
def test_a_while_with_branches_carrying_an_array(dtype):
    x = (np.random.default_rng(3).permutation(40) % 9).astype(dtype)
    three_way(bubble_sort, x)
    three_way(bubble_sort, np.zeros(0, dtype), compiled=False)  # no loop left


def test_the_numba_source_writes_in_place():
    """A write into an array nothing else reads afterwards is in place: one copy of the
    argument at the loop's entry, none per element."""
    xs = np.arange(500.0)
    cf = ag.function(prefix_sums, jit_compile=True).get_concrete_function(xs)
    loop = cf.jit_code[cf.jit_code.index("while True:"):]
    assert "[" in loop and ".copy()" not in loop


def power_walk(m, v, steps):
    i = 0
    total = v[0] * 0
    while i < steps:
        v = m @ v
        total = total + np.dot(v, v) + v[-1]
        i += 1
    return v, total


@pytest.mark.parametrize("dtype", ["int32", "int64", "float64"])
def test_small_matmul_and_dot_in_a_loop(dtype):
    """Integer products compile (their sums wrap the same in any order); a float product
    stays NumPy's call (its BLAS sums in an order of its own): still the same result."""
    m = (np.arange(9).reshape(3, 3) % 4 - 1).astype(dtype)
    v = np.arange(3).astype(dtype)
    compiled = dtype != "float64"
    three_way(power_walk, m, v, np.int64(12), compiled=compiled)
    three_way(power_walk, m, v, np.int64(40), compiled=compiled)  # int32 wraps and warns


def doublings(n):
    steps = 0
    while n > 0:  # ends once the NumPy int64 wraps (NumPy warns: scalar multiply)
        n = n * 2
        steps += 1
    return steps, n


def max_plus_one(d):
    best = d[0] + 1
    for i in range(d.shape[0]):
        v = d[i] + 1  # the largest int64 wraps (NumPy warns: scalar add)
        if v < best:
            best = v
        d[i] = v
    return best, d


@pytest.mark.parametrize("start", [1, 2 ** 61, 2 ** 62 + 3])
def test_a_guard_fired_mid_loop_reruns_as_the_default_executor(start):
    """A value guard (NumPy would warn) is tested once per iteration: the loop stops at
    the end of the iteration it fired in and reruns on NumPy, with its warnings."""
    three_way(doublings, np.int64(start))
    big = np.array([5, np.iinfo(np.int64).max, -7, 3], np.int64)
    three_way(max_plus_one, big)
    three_way(max_plus_one, np.arange(6, dtype=np.int64) * (start % 1000 + 1))
