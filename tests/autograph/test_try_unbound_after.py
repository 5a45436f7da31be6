"""A variable unbound before a graph `try` that one path through it binds and another
(a handler that does not assign it, going on after the `try`) leaves unbound: Python
raises UnboundLocalError reading it after the `try` on that path only. The graph cannot
raise on one path only, so reading it after the `try` is a ConversionError at the `try`
naming it (never zeros or the other path's value); unread, or bound by the `else` where
the handler binds it too, the graph is exact."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def read_after_a_handler_that_passes(k):
    try:
        z = np.array([1.0, 2.0, 3.0])[k]
    except IndexError:
        pass
    return z


def read_after_an_else_that_does_not_bind_it(k):
    try:
        z = np.array([1.0, 2.0, 3.0])[k]
    except IndexError:
        w = 2.0
    else:
        w = 1.0
    return z + w


def bound_by_the_else_and_the_handler(k):
    try:
        z = np.array([1.0, 2.0, 3.0])[k]
    except IndexError:
        w = 2.0
    else:
        w = z
    return w


def unread_after_the_try(k, x):
    try:
        z = np.array([1.0, 2.0, 3.0])[k]
        x = x + z
    except IndexError:
        pass
    return x


@pytest.mark.parametrize("fn", [read_after_a_handler_that_passes,
                                read_after_an_else_that_does_not_bind_it])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_a_read_after_the_try_raises_where_python_does(fn, mode):
    # carried with whether the path taken bound it (operators/partly_bound.py): Python's
    # UnboundLocalError on the handler's path only, when the graph runs
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn, jit_compile=mode == "jit")
    for k in (1, 7, 2, 9):
        want, got = outcome(fn, (np.int64(k),), exact_type=True), \
            outcome(run, (np.int64(k),), exact_type=True)
        assert got[0] == want[0] and (got[1:] == want[1:] if want[0] == "raised" else
                                      type(got[1]) is type(want[1]) and got[1] == want[1])


def holds_a_list_on_one_path(k):
    try:  # refused
        z = [np.array([1.0, 2.0, 3.0])[k]]
    except IndexError:
        pass
    return z


@pytest.mark.parametrize("k", [1, 7])
def test_another_object_read_after_the_try_is_an_error_at_the_try(k):
    lines, first = inspect.getsourcelines(holds_a_list_on_one_path)
    line = first + next(i for i, t in enumerate(lines) if "# refused" in t)
    with pytest.raises(ag.ConversionError, match="'z'") as info:
        ag.function(holds_a_list_on_one_path)(np.int64(k))
    assert info.value.lineno == line


@pytest.mark.parametrize("fn,args", [
    (bound_by_the_else_and_the_handler, (np.int64(1),)),
    (bound_by_the_else_and_the_handler, (np.int64(7),)),
    (unread_after_the_try, (np.int64(1), np.float64(0.5))),
    (unread_after_the_try, (np.int64(7), np.float64(0.5))),
])
@pytest.mark.parametrize("jit", [False, True])
def test_bound_where_read_is_exact(fn, args, jit):
    want = fn(*args)
    got = ag.function(fn, jit_compile=jit)(*args)
    assert type(got) is type(want) and got == want


class FuzzError(ValueError):
    pass


def raise_in_else(n, k):
    # (fuzz seed 381 of graph_try,try_raises) the `else`'s `raise` was raised while
    # tracing, so every call raised it, also where the handler took the error
    t = 0
    for _ in range(k):
        try:
            t = t + int(np.array([3, 5, 7])[n])
        except IndexError:
            t = t + 2
        else:
            raise FuzzError("from the else")
    return t


@pytest.mark.parametrize("n", [1, 3])
@pytest.mark.parametrize("jit", [False, True])
def test_a_raise_in_else_runs_where_the_body_finished(n, jit):
    args = (np.int64(n), np.int64(4))
    run = ag.function(raise_in_else, jit_compile=jit)
    for fn in (raise_in_else, run):
        try:
            got = "value", fn(*args)
        except FuzzError as e:
            got = "error", str(e)
        if fn is raise_in_else:
            want = got
    assert got == want


def handed_over_then_read(k, xs):
    # (fuzz seed 1394 of the union set, rewritten) the body's `raise` is seen while
    # tracing and handed to its handler in Python: that path binds `p`, the IndexError
    # handler's does not; the graph read zeros there
    try:
        p = xs[k]
        raise FuzzError("every call that gets here")
    except FuzzError:
        a = 1
    except IndexError:
        a = 2
    return a, p


def handed_over_handler_binds_it(k, xs):
    try:
        q = xs[k] * 2
        raise FuzzError("every call that gets here")
    except FuzzError:
        p = q
    except IndexError:
        p = -1.0
    return p


@pytest.mark.parametrize("fn", [handed_over_then_read, handed_over_handler_binds_it])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_a_body_error_handed_to_python_counts_its_path(fn, mode):
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn, jit_compile=mode == "jit")
    xs = np.array([1.0, 2.0, 3.0])
    for k in (1, 7, 0):
        want, got = outcome(fn, (np.int64(k), xs), exact_type=True), \
            outcome(run, (np.int64(k), xs), exact_type=True)
        assert got[0] == want[0], (k, got, want)
        if want[0] == "raised":
            assert got[1:] == want[1:]
        else:
            assert repr(got[1]) == repr(want[1])


def zero_division():
    return 60 // (2 - 2)


def handler_loop_raises_before_an_unbound_read(xs):
    # (fuzz seed 6742 of graph_try,try_raises, on main too) the body's Python error is
    # handed to the handler, whose loop raises when the graph runs; with a `finally`, the
    # read after the `try` of a variable the body never bound raised UnboundLocalError
    # while tracing, first
    t = 0
    try:
        a = zero_division()
        p = xs[0] + a
    except ArithmeticError:
        for _ in xs:
            raise KeyError("from the loop")  # noqa: B904 - the program under test
    finally:
        t = t + 1
    return p


@pytest.mark.parametrize("jit", [False, True])
def test_the_loops_error_comes_before_the_unbound_read(jit):
    run = ag.function(handler_loop_raises_before_an_unbound_read, jit_compile=jit)
    for xs in (np.array([1.0, 2.0]), np.zeros(0), np.array([3.0])):
        assert outcome(run, (xs,), exact_type=True) == \
            outcome(handler_loop_raises_before_an_unbound_read, (xs,), exact_type=True)
