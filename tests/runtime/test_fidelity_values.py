"""A symbolic value behaves as the NumPy value would, or raises a clear error at the
user's line: text conversion, hashing, round(), ndarray methods that need a value or
mutate in place, sequence repetition and comparison with text / None.

Traced without AutoGraph (`runtime.function`): these are Tensor's own dunders."""
from __future__ import annotations

import inspect
import os

import numpy as np
import pytest

import runtime
from runtime import GraphModeError
from runtime.core.errors import TracingRecursionError
from tests.helpers import assert_same, check_three_ways

HERE = os.path.basename(__file__)


def line_of(fn, text: str) -> str:
    """'this_file.py:N' of the first line of `fn` containing `text`."""
    lines, start = inspect.getsourcelines(fn)
    return f"{HERE}:{start + next(k for k, s in enumerate(lines) if text in s)}"


def graph_error(fn, *args, error=GraphModeError):
    with pytest.raises(error) as info:
        runtime.function(fn)(*args)
    return str(info.value)


# -- text ---------------------------------------------------------------------------------
def str_len(n):
    return len(str(n))


def palindrome(n):
    s = str(n)
    return s == s[::-1]


def digit_sum(n):
    return sum(int(c) for c in str(n))


def f_string(n):
    return f"n={n}"


def format_spec(x):
    return f"{x:.2f}"


def percent_s(n):
    return "%s" % n


def str_format(n):
    return "{}".format(n)


@pytest.mark.parametrize("fn, text", [
    (str_len, "str(n)"), (palindrome, "str(n)"), (digit_sum, "str(n)"),
    (f_string, 'f"n={n}"'), (format_spec, "x:.2f"), (percent_s, '"%s" % n'),
    (str_format, "\"{}\".format(n)"),
])
def test_text_of_a_symbolic_value_raises_at_the_line(fn, text):
    arg = np.float64(1.5) if fn is format_spec else np.int64(12321)
    fn(arg)  # eager NumPy gives text
    msg = graph_error(fn, arg)
    assert line_of(fn, text) in msg
    assert "to text" in msg and "n % 10, n // 10" in msg and "ag.print(x)" in msg


def test_repr_keeps_the_symbolic_description():
    seen = []

    def f(x):
        seen.append(repr(x) + f" {x!r}")
        return x + 1

    check_three_ways(f, np.float32(2.0))
    assert seen[-1] == "Tensor(x, float32[]) Tensor(x, float32[])"


def test_arithmetic_on_digits_is_the_way():
    def digits(n):
        s = np.int64(0)
        for _ in range(5):
            s = s + n % 10
            n = n // 10
        return s

    check_three_ways(digits, np.int64(12345))


# -- hashing -------------------------------------------------------------------------------
def set_size(a, b):
    return len({a, b})


def dict_get(a, b):
    d = {a: 1}
    return d.get(b, 0)


def set_add(a):
    seen = set()
    seen.add(a)
    return a


@pytest.mark.parametrize("fn, text", [
    (set_size, "{a, b}"), (dict_get, "{a: 1}"), (set_add, "seen.add(a)")])
def test_symbolic_values_are_unhashable_for_user_code(fn, text):
    args = (np.int64(1),) * len(inspect.signature(fn).parameters)
    fn(*args)  # eager NumPy hashes the value
    msg = graph_error(fn, *args)
    assert "unhashable" in msg and line_of(fn, text) in msg and "np.unique" in msg


def test_unhashable_is_a_type_error_like_other_unhashables():
    def f(a):
        try:
            hash(a)
        except TypeError:
            return a + 1
        return a

    assert_same(runtime.function(f)(np.int64(3)), np.int64(4))


def test_library_bookkeeping_still_hashes_tensors():
    # cond / while_loop / codegen key their tables by Tensor identity
    def f(x, n):
        return runtime.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + x),
                                  (np.int64(0), np.zeros_like(x)))[1]

    out = runtime.function(f)(np.ones(3), np.int64(4))
    assert_same(out, np.full(3, 4.0))


# -- round --------------------------------------------------------------------------------
def round0(x):
    return round(x)


def round1(x):
    return round(x, 1)


def round_neg(x):
    return round(x, -1)


@pytest.mark.parametrize("fn", [round0, round1, round_neg])
@pytest.mark.parametrize("value", [
    np.float64(2.5), np.float64(3.5), np.float64(-2.5), np.float64(2.25), np.float64(-0.4),
    np.float32(3.5), np.float16(2.5), np.int64(15), np.int32(-25), np.uint8(250),
])
def test_round_matches_numpy_scalars(fn, value):
    check_three_ways(fn, value)


@pytest.mark.parametrize("value, error, text", [
    (np.float64("nan"), ValueError, "cannot convert float NaN to integer"),
    (np.float64("inf"), OverflowError, "cannot convert float infinity to integer"),
    (np.float64("-inf"), OverflowError, "cannot convert float infinity to integer"),
])
def test_round_of_nan_or_inf_raises_like_python_every_call(value, error, text):
    with pytest.raises(error, match=text):
        round0(value)
    f = runtime.function(round0)
    assert_same(f(np.float64(2.5)), 2)  # traced once: the check is in the graph
    with pytest.raises(error, match=text) as info:
        f(value)
    assert line_of(round0, "round(x)") in str(info.value)


def test_round_beyond_int64_says_so():
    f = runtime.function(round0)
    with pytest.raises(OverflowError, match="does not fit in int64"):
        f(np.float64(1e300))


@pytest.mark.parametrize("value, kind", [
    (np.ones(3), "ndarray"), (np.bool_(True), "bool"), (np.complex128(1), "complex128")])
def test_round_without_a_round_method_raises_like_numpy(value, kind):
    with pytest.raises(TypeError, match=f"numpy.{kind} doesn't define __round__"):
        round0(value)
    msg = graph_error(round0, value, error=TypeError)
    assert f"numpy.{kind} doesn't define __round__" in msg and line_of(round0, "round(x)") in msg


# -- ndarray methods -----------------------------------------------------------------------
def item(x):
    return x.item() + 1


def tolist(x):
    return x.tolist()


@pytest.mark.parametrize("fn, text, fix, error", [
    (item, "x.item()", "x[()]", GraphModeError),
    (tolist, "x.tolist()", "np.split", GraphModeError),
])
def test_value_methods_raise_clear_errors(fn, text, fix, error):
    x = np.array([3.0]) if fn is item else np.array([3.0, 1.0, 2.0])
    fn(x.copy())
    msg = graph_error(fn, x, error=error)
    assert line_of(fn, text) in msg and fix in msg


def test_np_sort_is_the_supported_spelling():
    # (x.fill / x.sort work in place: tests/autograph/test_fidelity_view_writes.py)
    check_three_ways(lambda x: np.sort(x), np.array([3.0, 1.0, 2.0]))


# -- sequences and text as operands ---------------------------------------------------------
def stars(n):
    return "*" * n


def zeros_list(n):
    return [0] * n


def list_times(n):
    return n * [1, 2]


@pytest.mark.parametrize("fn, text, kind", [
    (stars, '"*" * n', "str"), (zeros_list, "[0] * n", "list"), (list_times, "n * [1, 2]", "list")])
def test_repeating_a_sequence_by_a_symbolic_count_raises(fn, text, kind):
    fn(np.int64(3))  # eager: the sequence repeated
    msg = graph_error(fn, np.int64(3))
    assert f"Repeating a {kind} by a symbolic count" in msg and line_of(fn, text) in msg


def test_array_times_list_stays_elementwise():
    check_three_ways(lambda x: x * [1.0, 2.0], np.array([3.0, 4.0]))


@pytest.mark.parametrize("fn", [
    lambda x: x == "", lambda x: x != "abc", lambda x: x == b"", lambda x: x == None,  # noqa: E711
    lambda x: x != None,  # noqa: E711
])
@pytest.mark.parametrize("value", [np.int64(3), np.float32(1.0), np.ones(2), np.ones((2, 3))])
def test_comparison_with_text_or_none_is_elementwise_false(fn, value):
    expected = fn(value)
    actual = runtime.function(fn)(value)
    assert_same(actual, expected)
    assert type(actual) is type(expected)


def test_recursion_error_type_is_both_graph_mode_and_recursion_error():
    assert issubclass(TracingRecursionError, RecursionError)
    assert issubclass(TracingRecursionError, GraphModeError)
