"""A function that writes into its argument array writes into the caller's array itself,
as NumPy does: same values, same result objects (`return x` gives the caller's array),
and the same state after an error as eager NumPy - under the default errstate (direct
writes) and under others (the graph's copy, written back)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
import runtime.state.writeback as writeback


def set_then_add(x):
    x[0] = 5.0
    x += 1.0
    return x


def ufunc_out(x):
    np.add(x, 1.0, out=x)
    np.multiply(x, 2.0, out=x)
    return x


def clip_out(x):
    np.minimum(x, 2.0, out=x)
    np.maximum(x, 1.0, out=x)
    return x


def add_out_alone(x):
    np.add(x, 1.0, out=x)  # the sum is computed into x itself, as NumPy does
    return x


def slice_write(x):
    x[1:3] = 7.0
    x *= 0.5
    return x


def reads_before_write(x):
    y = x * 2.0
    x[0] = 1.0
    return y + x


def returns_something_else(x):
    x += 1.0
    return np.sum(x)


def two_arguments(x, y):
    x[0] = 3.0
    y += x
    return x, y


def reads_then_overwrites(x):
    y = x + 1.0
    x[:] = 3.0
    return y


def chain_with_a_read_between(x):
    x += 1.0
    y = x * 2.0
    x -= 5.0
    return y, x


def rebinds_then_writes(x, g):
    y = g * 0.5
    x -= y
    x = x * 3.0  # a new array: the caller's keeps the value before
    return x, y


def divides_in_place(x):
    x[0] = 2.0
    x /= 0.0
    return x


def momentum(p, v):
    v *= 0.9  # computed into v itself, then v += p into it again: no copy, as in NumPy
    v += p
    p -= 0.5 * v
    return p


# an intermediate computed into the argument's buffer must not be a result when the
# argument's final value is computed elsewhere (it is copied over that buffer)
def intermediate_returned(x, y):
    t = x + 1.0
    np.multiply(y, 2.0, out=x)
    return t


def intermediate_chain_returned(x, y):
    t = x + 1.0
    u = t * 2.0
    np.multiply(y, 3.0, out=x)
    return u


def intermediate_updated_then_returned(x, y):
    t = x + 1.0
    t[0] = 5.0
    x[...] = y
    return t


def intermediate_viewed_then_returned(x, y):
    t = x + 1.0
    r = t.reshape(2, 2)
    x[...] = y
    return r


def intermediate_read_by_results(x, y):
    t = x + 1.0
    w = t * 3.0
    x[...] = y * 2.0
    return w + 1.0, t.sum()


CASES = [set_then_add, ufunc_out, clip_out, add_out_alone, slice_write, reads_before_write, returns_something_else,
         two_arguments, reads_then_overwrites, chain_with_a_read_between, rebinds_then_writes,
         momentum, intermediate_returned, intermediate_chain_returned,
         intermediate_updated_then_returned, intermediate_viewed_then_returned,
         intermediate_read_by_results]


def _args(fn):
    n = fn.__code__.co_argcount
    return [np.arange(4.0) + k for k in range(n)]


def _same(got, expected, got_args, expected_args):
    if isinstance(expected, tuple):
        assert isinstance(got, tuple) and len(got) == len(expected)
        for g, e in zip(got, expected):
            _same(g, e, got_args, expected_args)
        return
    assert type(got) is type(expected)
    np.testing.assert_array_equal(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype
    # a result that is an argument array in Python is that argument here too
    for g, e in zip(got_args, expected_args):
        assert (got is g) == (expected is e)


@pytest.mark.parametrize("jit_compile", [False, True])
@pytest.mark.parametrize("errstate", [None, "ignore", "raise"])
@pytest.mark.parametrize("fn", CASES)
def test_writes_into_arguments_as_numpy(fn, errstate, jit_compile):
    f = ag.function(fn, jit_compile=jit_compile)
    for _ in range(3):  # first call traces; the next ones take the cached call path
        eager_args, graph_args = _args(fn), _args(fn)
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message="jit_compile")
            if errstate is None:
                expected, got = fn(*eager_args), f(*graph_args)
            else:
                with np.errstate(all=errstate):
                    expected, got = fn(*eager_args), f(*graph_args)
        _same(got, expected, graph_args, eager_args)
        for g, e in zip(graph_args, eager_args):
            np.testing.assert_array_equal(g, e)


@pytest.mark.parametrize("fn", [set_then_add, add_out_alone])
def test_direct_write_makes_no_copy_of_the_argument(fn):
    f = ag.function(fn)
    x = np.zeros(3)
    f(x)
    cf = f.concrete_functions[0]
    assert cf._direct  # the graph has only writes at constant indices and ufuncs
    x = np.zeros(3)
    before = x.__array_interface__["data"][0]
    assert f(x) is x  # the argument itself, written in place (Python returns x too)
    assert x.__array_interface__["data"][0] == before
    np.testing.assert_array_equal(x, fn(np.zeros(3)))


@pytest.mark.parametrize("calls", [1, 2])
def test_warning_raised_as_error_after_a_direct_write(calls):
    """`x /= 0.0` warns; with warnings as errors Python has written x[0] and x when it
    raises: the direct write leaves the same, and is not applied a second time."""
    f = ag.function(divides_in_place)
    if calls == 2:
        f(np.ones(3))  # traced outside the error, so the second call runs the cache
    eager, graph = np.ones(3), np.ones(3)
    outcomes = []
    for fn, x in ((divides_in_place, eager), (f, graph)):
        with warnings.catch_warnings():
            warnings.simplefilter("error", RuntimeWarning)
            with pytest.raises(RuntimeWarning) as info:
                fn(x)
        outcomes.append(str(info.value))
    assert outcomes[0] == outcomes[1]
    np.testing.assert_array_equal(graph, eager)


def test_read_only_and_overlapping_arguments_are_refused_before_writing():
    f = ag.function(two_arguments)
    x = np.zeros(4)
    with pytest.raises(ValueError, match="shares memory"):
        f(x[:2], x[1:3])
    np.testing.assert_array_equal(x, np.zeros(4))
    frozen = np.zeros(2)
    frozen.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        f(frozen, np.zeros(2))


@pytest.mark.parametrize("fn", [clip_out, momentum])
def test_values_computed_from_an_argument_go_into_it(fn):
    """`np.minimum(x, 2.0, out=x)` then `np.maximum(x, 1.0, out=x)`, `v *= 0.9` then
    `v += p`: each step is computed into the argument, as NumPy does, so no argument is
    copied into after the call."""
    f = ag.function(fn)
    f(*_args(fn))
    assert f.concrete_functions[0]._direct
    args, expected_args = _args(fn), _args(fn)
    before = [a.__array_interface__["data"][0] for a in args]
    copies = []
    original = writeback._copy_into
    writeback._copy_into = lambda target, value: copies.append(target) or original(target, value)
    try:
        got = f(*args)
    finally:
        writeback._copy_into = original
    assert copies == []
    _same(got, fn(*expected_args), args, expected_args)
    assert [a.__array_interface__["data"][0] for a in args] == before
    for g, e in zip(args, expected_args):
        np.testing.assert_array_equal(g, e)


def five_arguments(a, b, c, d, e):
    a += b * c - d * e
    return a


@pytest.mark.parametrize("make", [
    lambda: [np.arange(8.0)[::2], np.ones(4)],                 # a view: checked for overlap
    lambda: [np.arange(4.0), np.float64(2.0)],                   # a NumPy scalar leaf
    lambda: [np.arange(4.0), np.arange(8.0)[1:5]],               # another argument is a view
])
def test_direct_call_takes_the_checked_path_for_other_arguments(make):
    f = ag.function(two_arguments)
    for _ in range(3):
        args, expected_args = make(), make()
        _same(f(*args), two_arguments(*expected_args), args, expected_args)
        for g, e in zip(args, expected_args):
            np.testing.assert_array_equal(g, e)


def test_direct_call_with_many_arguments():
    f = ag.function(five_arguments)
    for k in range(3):
        args = [np.arange(4.0) + i for i in range(5)]
        expected_args = [np.arange(4.0) + i for i in range(5)]
        if k == 2:  # the same array twice: one graph input for both, as Python sees it
            args[3], expected_args[3] = args[1], expected_args[1]
        _same(f(*args), five_arguments(*expected_args), args, expected_args)
        for g, e in zip(args, expected_args):
            np.testing.assert_array_equal(g, e)


def two_written_after_a_reduction(x, y):
    total = np.sum(y)  # a reduction: the graph is not `cannot_raise`, the copy path runs
    x += total
    y *= 2.0
    return x, total


@pytest.mark.parametrize("make", [
    lambda: [np.arange(4.0), np.ones(4)],                       # plain arrays: generated call
    lambda: [np.arange(8.0)[::2], np.ones(4)],                  # a view: the checked path
    lambda: [np.arange(4.0), np.arange(8.0)[1:5]],
])
def test_several_written_arguments_are_copied_back_by_one_generated_call(make):
    f = ag.function(two_written_after_a_reduction)
    for _ in range(3):
        args, expected_args = make(), make()
        _same(f(*args), two_written_after_a_reduction(*expected_args), args, expected_args)
        for g, e in zip(args, expected_args):
            np.testing.assert_array_equal(g, e)
    cf = f.concrete_functions[0]
    assert not cf._direct and cf._fn.__code__.co_filename == "<argument write-back>"


class Counter:
    def __init__(self):
        self.calls = 0.0


def writes_argument_and_state(x, counter):
    counter.calls = counter.calls + 1.0
    x += counter.calls
    return np.sum(x)


def test_an_argument_and_python_state_written_by_one_generated_call():
    f = ag.function(writes_argument_and_state)
    graph_counter, eager_counter = Counter(), Counter()
    for k in range(4):
        x, expected_x = np.arange(4.0), np.arange(4.0)
        if k == 3:  # a view: the checked path
            x, expected_x = np.arange(8.0)[::2], np.arange(8.0)[::2]
        _same(f(x, graph_counter), writes_argument_and_state(expected_x, eager_counter),
              [x], [expected_x])
        np.testing.assert_array_equal(x, expected_x)
        assert type(graph_counter.calls) is float and graph_counter.calls == eager_counter.calls
