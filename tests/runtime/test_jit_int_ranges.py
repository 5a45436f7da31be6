"""Integer ranges in jit_compile=True (runtime/jit/int_ranges.py): the overflow guards and
index checks a loop's bounds prove needless are left out, and every one they do not
prove stays. Differential: the default executor against jit_compile=True, bitwise, under
the default errstate, `raise` and `ignore` (values, warnings, exceptions), at the edges:
int64's maximum, negative indices, indices just outside the array, loops whose bounds
are data."""
from __future__ import annotations

import itertools
import re
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.jit.int_ranges import Bounds, _arith
from runtime.jit.ops import overflow_guard
from tests.runtime.jit_harness import check_jit, compiled_regions
from tests.runtime.test_jit_element_loops import edit_distance

pytest.importorskip("numba")

MAX = int(np.iinfo(np.int64).max)
MIN = int(np.iinfo(np.int64).min)


def _code(fn, *args) -> str:
    jit = ag.function(fn, jit_compile=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        jit(*args)
    assert compiled_regions(jit, *args) == 1
    return jit.get_concrete_function(*args).jit_code


def _index_checks(code: str) -> int:
    """How many index tests the numba source makes (`not (-n <= k < n)`, `not (k < n)`)."""
    return len(re.findall(r"if not \((-\S+ <= )?np\.int64\(\w+\) < ", code))


def test_edit_distance_has_no_index_checks_and_keeps_the_element_guards():
    rng = np.random.default_rng(1)
    a, b = rng.integers(0, 4, 40), rng.integers(0, 4, 40)
    check_jit(edit_distance, a, b)
    code = _code(edit_distance, a, b)
    assert _index_checks(code) == 0  # every index is inside its dimension
    assert " < 0 else " not in code  # and none counts from the end
    # the loop counters cannot overflow; `d[i - 1, j] + 1` can (NumPy warns): tested
    assert "9223372036854775806)" in code
    assert "_loop > 9223372036854775806" not in code


def test_element_guard_fires_at_int64_max():
    a = np.array([1, 2, 3])
    d_max = np.array([MAX - 1, MAX, 0])

    def bump(xs, d):
        s = np.int64(0)
        for i in range(xs.shape[0]):
            s = d[i] + xs[i] - xs[i]  # d[1] + 2 overflows: NumPy warns
        return s

    check_jit(bump, a, d_max)


@pytest.mark.parametrize("start", [MAX - 3, MAX - 1, MAX])
def test_counter_up_to_int64_max(start):
    def count_to_max(n):
        steps = np.int64(0)
        while n < np.int64(MAX):  # n + 1 never leaves int64: no guard
            n = n + 1
            steps = steps + 1
        return n, steps

    def count_past_max(n):
        steps = 0
        while n > 0:  # n + 1 wraps at MAX: NumPy warns (or raises), as eagerly
            n = n + 1
            steps += 1
            if steps > 5:
                break
        return n, steps

    check_jit(count_to_max, np.int64(start))
    check_jit(count_past_max, np.int64(start))


def test_negative_indices_count_from_the_end():
    def backwards(xs):
        s = np.float64(0.0)
        for i in range(1, xs.shape[0] + 1):
            s = s * 0.5 + xs[-i]
        return s

    xs = np.linspace(0.0, 1.0, 300)  # long enough to stay a loop
    check_jit(backwards, xs)
    code = _code(backwards, xs)
    assert _index_checks(code) == 0 and " + 300)]" in code  # wrapped, never tested


@pytest.mark.parametrize("shift", [-301, -300, -299, -3, 0, 1, 2])
def test_indices_that_may_leave_the_array_raise_numpys_error(shift):
    def shifted(xs, k):
        s = np.float64(0.0)
        for i in range(xs.shape[0]):
            s = s + xs[i + k]
        return s

    xs = np.arange(300.0)
    check_jit(shifted, xs, shift)  # k is a Python constant of the trace


@pytest.mark.parametrize("start,stop,step", [
    (0, 10, 1), (9, -1, -1), (-10, 0, 1), (-1, -11, -1), (0, 11, 1), (-11, 0, 1),
    (3, 10, 3), (9, -2, -2), (0, 10, 4), (10, 0, -3)])
def test_ranges_with_any_start_stop_step(start, stop, step):
    def walk(xs):
        s = np.int64(0)
        for i in range(start, stop, step):
            s = s * 3 + xs[i]
        return s

    check_jit(walk, np.arange(10, 20))


def test_data_dependent_index_keeps_its_check():
    def chase(xs, start):
        i = start
        steps = 0
        while steps < 30:
            i = xs[i]  # any value the data holds: tested
            steps += 1
        return i

    ok = np.array([1, 2, 3, 0], dtype=np.int64)
    check_jit(chase, ok, np.int64(0))
    check_jit(chase, np.array([1, -2, 3, 0]), np.int64(0))
    check_jit(chase, np.array([1, 2, 4, 0]), np.int64(0))   # IndexError, as NumPy's
    check_jit(chase, np.array([1, 2, -5, 0]), np.int64(0))
    assert _index_checks(_code(chase, ok, np.int64(0))) >= 1


def test_bound_from_an_argument_is_not_trusted():
    def first_n(xs, n):
        s = np.int64(0)
        i = np.int64(0)
        while i < n:
            s = s + xs[i]
            i = i + 1
        return s

    xs = np.arange(8)
    for n in (0, 8, 9, MAX):
        check_jit(first_n, xs, np.int64(n))
    assert _index_checks(_code(first_n, xs, np.int64(8))) >= 1


@pytest.mark.parametrize("n", [5, 40])
def test_counter_written_into_narrow_arrays(n):
    def fill(out):
        for i in range(out.shape[0]):
            out[i] = i * 7 - 3
        return out

    for dt in ("int8", "int32", "float32", "uint8"):
        check_jit(fill, np.zeros(n, dt))


def test_python_int_state_stays_exact_or_raises():
    def squares(xs):
        total = 0
        for i in range(xs.shape[0]):
            total = total + i * i
        return total

    def doubling(xs):
        total = 1
        for i in range(xs.shape[0]):
            total = total + total + i
        return total

    check_jit(squares, np.zeros(50))
    check_jit(doubling, np.zeros(30))
    # beyond int64 the default executor holds a Python int: the region hands over to it
    big = ag.function(doubling, jit_compile=True)(np.zeros(70))
    assert type(big) is int and big == doubling(np.zeros(70)) > MAX


def test_division_by_a_counter_that_can_be_zero():
    def divide(xs):
        s = 0
        for i in range(-2, 3):
            s = s + 7 // (i + xs.shape[0] - 4) + 7 % (i + 3)
        return s

    check_jit(divide, np.zeros(4))   # i + 0 reaches 0: ZeroDivisionError, as eagerly
    check_jit(divide, np.zeros(7))


def test_small_dtype_elements_plus_a_counter():
    def tally(xs):
        s = np.int64(0)
        for i in range(xs.shape[0]):
            s = s + xs[i] + i
        return s

    check_jit(tally, np.arange(200, dtype=np.uint8))
    check_jit(tally, np.arange(-100, 100, dtype=np.int8))


# -- the pieces -------------------------------------------------------------------------
EDGES = [MIN, MIN + 1, MIN + 2, -(1 << 32) - 1, -(1 << 32), -5, -1, 0, 1, 5, 1 << 32,
         (1 << 32) + 1, MAX - 2, MAX - 1, MAX]
SPANS = [None, (0, 0), (0, 1), (-1, 0), (-3, 4), (1, 1 << 32), (-(1 << 32), -7),
         (MIN, MAX)]


@pytest.mark.parametrize("op", ["add", "subtract"])
def test_overflow_guard_never_misses(op):
    """The guard of `x op y` (with or without the operands' intervals) is true whenever
    the exact result leaves int64."""
    for xs, ys in itertools.product(SPANS, SPANS):
        guard = " or ".join(overflow_guard(op, "x", "y", "r", (xs, ys))) or "False"
        for x, y in itertools.product(EDGES, EDGES):
            if xs is not None and not xs[0] <= x <= xs[1] or \
                    ys is not None and not ys[0] <= y <= ys[1]:
                continue
            exact = x + y if op == "add" else x - y
            r = (exact - MIN) % (1 << 64) + MIN  # the wrapped result
            leaves = not MIN <= exact <= MAX
            if leaves:
                assert eval(guard, {"x": x, "y": y, "r": r}), (op, xs, ys, x, y, guard)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "negative", "absolute",
                                  "square", "floor_divide", "remainder", "maximum",
                                  "minimum"])
def test_interval_arithmetic_contains_every_result(name):
    values = [-7, -3, -1, 0, 1, 2, 5, 9]
    ufunc = getattr(np, name)
    for a in itertools.combinations(values, 2):
        for b in itertools.combinations(values, 2):
            got = _arith(name, [a] if getattr(np, name).nin == 1 else [a, b])
            if got is None:
                continue
            for x in range(a[0], a[1] + 1):
                for y in range(b[0], b[1] + 1):
                    args = (x,) if ufunc.nin == 1 else (x, y)
                    if name in ("floor_divide", "remainder") and y == 0:
                        continue
                    r = int(ufunc(*[np.int64(v) for v in args]))
                    assert got[0] <= r <= got[1], (name, a, b, x, y, r, got)


def test_empty_bounds_prove_nothing():
    nothing = Bounds()
    assert nothing.interval(3) == (3, 3) and nothing.interval(1.5) is None
    assert not nothing.within(np.zeros(3), 0, 1)
