"""Converted code on symbolic values: the NumPy answer or a clear error at the user's line.

`isinstance` and `print` of symbolic values, `for` over empty arrays, `range` argument
checks, recursion on a symbolic stopping condition, nested lists as loop state and
Python iteration over a symbolic range. Each case runs the original function on NumPy
values and the `ag.function` on the same values, and compares."""
from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import autograph as ag
from runtime.core.errors import TracingRecursionError
from tests.helpers import assert_same

HERE = os.path.basename(__file__)


def line_of(fn, text: str) -> str:
    lines, start = inspect.getsourcelines(fn)
    return f"{HERE}:{start + next(k for k, s in enumerate(lines) if text in s)}"


def same_as_eager(fn, *args, **kwargs):
    expected = fn(*args)
    actual = ag.function(fn, **kwargs)(*args)
    assert_same(actual, expected)
    return actual


# -- isinstance ------------------------------------------------------------------------------
CLASSES = [float, int, complex, bool, (int, float), np.ndarray, np.generic, np.floating,
           np.integer, np.float64, np.number, object]


def is_float(x):
    return isinstance(x, float), isinstance(x, (int, float)), isinstance(x, np.ndarray)


@pytest.mark.parametrize("value", [
    np.float64(1.5), np.float32(1.5), np.int64(2), np.int32(2), np.bool_(True),
    np.complex128(1j), np.ones(3), np.ones((2, 2), np.int32),
])
def test_isinstance_answers_for_the_numpy_value(value):
    def f(x):
        return tuple(isinstance(x, c) for c in CLASSES)

    expected = f(value)
    assert ag.function(f)(value) == expected
    assert ag.function(lambda x: isinstance(x * 2, (int, float)))(value) == \
        isinstance(value * 2, (int, float))


def test_isinstance_guard_takes_the_numpy_branch():
    def scale(x):
        if isinstance(x, (int, float)):
            return x * 2.0
        return x.sum()

    same_as_eager(scale, np.float64(3.0))
    same_as_eager(scale, np.ones(3))
    same_as_eager(scale, np.int64(4))


def test_isinstance_of_a_graph_list_is_a_list():
    def f(x, n):
        xs = []
        i = np.int64(0)
        while i < n:
            xs.append(x)
            i += 1
        return isinstance(xs, list), isinstance(x, list)

    assert ag.function(f)(np.float64(1.0), np.int64(2)) == (True, False)


# -- print -------------------------------------------------------------------------------------
def test_print_of_a_symbolic_value_prints_its_value_on_every_call(capsys):
    def f(x):
        print("x is", x, [1, 2], sep="|")
        return x + 1

    g = ag.function(f)
    assert_same(g(np.float32(1.0)), np.float32(2.0))
    assert capsys.readouterr().out == "x is|1.0|[1, 2]\n"
    g(np.float32(2.0))  # not traced again: the graph print runs
    f(np.float32(2.0))
    assert capsys.readouterr().out == "x is|2.0|[1, 2]\n" * 2


def test_str_of_a_symbolic_value_in_converted_code_raises_at_the_line():
    def digits(n):
        return len(str(n))

    with pytest.raises(ag.GraphModeError) as info:
        ag.function(digits)(np.int64(123))
    assert line_of(digits, "str(n)") in str(info.value) and "n % 10" in str(info.value)


def test_set_of_symbolic_values_raises_at_the_line():
    def distinct(a, b):
        return len({a, b})

    with pytest.raises(ag.GraphModeError) as info:
        ag.function(distinct)(np.int64(1), np.int64(1))
    assert "unhashable" in str(info.value) and line_of(distinct, "{a, b}") in str(info.value)


def test_python_values_keep_python_text_and_hashing():
    def f(x, k):
        return x + len(str(k)) + len({k, k}), f"{k:03d}"

    same_as_eager(f, np.int64(1), 7)


# -- for over empty arrays ------------------------------------------------------------------
def total(x):
    s = np.float64(0.0)
    for v in x:
        s = s + np.sum(v)
    return s


def count_pairs(x, y):
    n = np.int64(0)
    for i, (a, b) in enumerate(zip(x, y)):
        n = n + i + (a < b)
    return n


@pytest.mark.parametrize("shape", [(0,), (0, 3), (3,), (2, 3)])
def test_for_over_an_array_of_static_length(shape):
    same_as_eager(total, np.ones(shape))


@pytest.mark.parametrize("n", [0, 1, 4])
def test_for_over_an_array_of_unknown_length(n):
    f = ag.function(total, input_signature=[ag.TensorSpec((None,), np.float64)])
    assert_same(f(np.ones(n)), total(np.ones(n)))


@pytest.mark.parametrize("nx, ny", [(0, 3), (3, 0), (0, 0), (2, 3)])
def test_zip_and_enumerate_with_an_empty_array(nx, ny):
    same_as_eager(count_pairs, np.arange(nx, dtype=np.float64), np.ones(ny))


def test_for_over_an_empty_array_leaves_loop_variables_alone():
    def last(x):
        v = np.float64(-1.0)
        for v in x:  # noqa: B007  (the loop variable outlives the loop)
            pass
        return v

    same_as_eager(last, np.zeros(0))


# -- range -------------------------------------------------------------------------------------
def stepped(a, b, c):
    s = np.int64(0)
    for i in range(a, b, c):
        s = s + i
    return s


@pytest.mark.parametrize("a, b, c", [(0, 7, 2), (7, 0, -3), (0, 5, 9), (3, 3, 1), (5, 0, 1)])
def test_symbolic_step_sums_like_python(a, b, c):
    same_as_eager(stepped, np.int64(a), np.int64(b), np.int64(c))


def test_symbolic_zero_step_raises_value_error_when_the_graph_runs():
    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero"):
        stepped(np.int64(0), np.int64(5), np.int64(0))
    f = ag.function(stepped)
    assert_same(f(np.int64(0), np.int64(5), np.int64(1)), np.int64(10))
    with pytest.raises(ValueError, match="range\\(\\) arg 3 must not be zero") as info:
        f(np.int64(0), np.int64(5), np.int64(0))
    assert line_of(stepped, "range(a, b, c)") in str(info.value)
    assert f.tracing_count == 1


def test_python_zero_step_with_symbolic_bounds_raises_while_tracing():
    def f(n):
        s = np.int64(0)
        for i in range(0, n, 0):
            s = s + i
        return s

    with pytest.raises(ValueError, match="arg 3 must not be zero"):
        ag.function(f)(np.int64(3))


def count(n):
    s = np.int64(0)
    for _ in range(n):
        s = s + 1
    return s


@pytest.mark.parametrize("value", [np.float64(3.0), np.float32(3.0), np.bool_(True)])
def test_range_of_a_non_integer_raises_python_type_error(value):
    with pytest.raises(TypeError) as eager:
        count(value)
    with pytest.raises(TypeError) as graph:
        ag.function(count)(value)
    assert str(eager.value) in str(graph.value)
    assert line_of(count, "range(n)") in str(graph.value)


def test_range_of_a_python_float_with_a_symbolic_bound():
    def f(n):
        s = np.int64(0)
        for i in range(0.5, n):
            s = s + i
        return s

    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        ag.function(f)(np.int64(3))


def test_range_of_an_integer_array_raises_like_numpy():
    with pytest.raises(TypeError, match="only integer scalar arrays"):
        ag.function(count)(np.arange(2))


def test_python_iteration_over_a_symbolic_range_names_the_line_and_the_fix():
    def as_list(n):
        return list(range(n))

    with pytest.raises(ag.GraphModeError) as info:
        ag.function(as_list)(np.int64(3))
    msg = str(info.value)
    assert line_of(as_list, "list(range(n))") in msg and "np.arange(n)" in msg


# -- recursion, nested lists -----------------------------------------------------------------
def factorial(n):
    if n <= 1:
        return np.int64(1)
    return n * factorial(n - 1)


def test_recursion_on_a_symbolic_stopping_condition_says_to_write_a_loop():
    assert factorial(np.int64(5)) == 120
    with pytest.raises(TracingRecursionError) as info:
        ag.function(factorial)(np.int64(5))
    msg = str(info.value)
    assert line_of(factorial, "if n <= 1") in msg and "Write it as a loop" in msg


def test_recursion_on_a_python_value_still_unrolls():
    def power(x, k):
        if k == 0:
            return np.ones_like(x)
        return x * power(x, k - 1)

    same_as_eager(power, np.float64(1.5), 5)


def test_nested_list_of_fixed_shape_is_symbolic_loop_state():
    # carried as a nested structure (the list keeps its length), not refused
    def rows(x, n):
        acc = [[x, x]]
        i = np.int64(0)
        while i < n:
            acc = [[acc[0][0] + 1, x]]
            i += 1
        return acc

    for n in (0, 2):
        same_as_eager(rows, np.float64(1.0), np.int64(n))


def test_list_of_python_number_rows_is_still_a_graph_list():
    def grow(n):
        acc = [[1.0, 2.0]]
        i = np.int64(0)
        while i < n:
            acc.append([3.0, 4.0])
            i += 1
        return np.stack(acc)

    same_as_eager(grow, np.int64(2))


def test_assert_message_may_show_a_symbolic_value():
    def positive(x):
        assert x > 0, f"x must be positive, got {x} ({x:>5})"
        return x

    f = ag.function(positive)
    same_as_eager(positive, np.float64(2.0))
    with pytest.raises(AssertionError, match="got Tensor\\(x, float64\\[\\]\\)"):
        f(np.float64(-1.0))
    with pytest.raises(ag.GraphModeError):  # only the message is let through
        ag.function(lambda x: len(f"{x}"))(np.float64(1.0))


# -- Python lists indexed or written at symbolic positions -------------------------------
def pick_from_a_list(x):
    weights = [1.0, 2.0, 3.0]
    return weights[int(np.argmax(x))]


def count_labels(labels, n):
    counts = [0] * n
    for label in labels:
        counts[int(label)] += 1
    return np.array(counts)


def pick_from_an_array(x):
    weights = np.asarray([1.0, 2.0, 3.0])
    return weights[int(np.argmax(x))]


def count_into_an_array(labels, n):
    counts = np.zeros(n, dtype=np.int64)
    for label in labels:
        counts[int(label)] += 1
    return counts


def test_a_python_list_indexed_by_a_symbolic_value_says_to_make_it_an_array():
    with pytest.raises(ag.GraphModeError) as info:
        ag.function(pick_from_a_list)(np.array([0.5, 3.0, 1.0]))
    message = str(info.value)
    assert line_of(pick_from_a_list, "return weights[") in message
    assert "A Python list, tuple, string or dict is indexed here" in message
    assert "installed package" not in message  # (the message for code left as Python)
    same_as_eager(pick_from_an_array, np.array([0.5, 3.0, 1.0]))  # the fix it names


def test_an_item_write_into_a_list_a_symbolic_loop_carries_says_to_make_it_an_array():
    labels = np.array([0, 2, 2, 1])
    with pytest.raises(TypeError) as info:
        ag.function(count_labels)(labels, 3)
    assert line_of(count_labels, "counts[int(label)] += 1") in str(info.value)
    assert "np.zeros(n, dtype=np.int64)" in str(info.value)
    same_as_eager(count_into_an_array, labels, 3)  # the fix it names
