"""A `raise` that Python reaches after operations that may fail: the graph raises in
Python's order. The `raise` is found while tracing (a Python condition, or no
condition); it becomes a graph-side raise after every operation recorded before it
(runtime/state/after_error.py `raise_in_order`, and `effects.raise_` in a symbolic
branch), so an error one of those raises comes first, and their prints and argument
writes happen as in Python. Each case runs eagerly, through `ag.function` (also
`jit_compile=True`) and `ag.to_graph`, comparing the outcome (value or exception), what
`ag.print` printed and the argument after the call. Reduced from fuzz seeds (fuzz_try.py).
Likewise an operation inside a branch or loop of a graph `try`'s body runs though nothing
uses its result (try_op.py `_keep_nested`): its error reaches the handler."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.autograph.test_try_graph_jumps import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def lookup_then_raise(n, xs):
    a = int(np.array([3, 5, 7])[n])
    xs[0] = a
    raise ValueError("bad")


def division_in_try_finally_then_raise(n, xs):
    tlog = 0
    try:
        a = 60 // (n - 3)
        tlog = tlog + a
    finally:
        tlog = tlog * 7
    raise ValueError("bad")


def raise_in_errstate_region(n, xs):
    tlog = 0
    a = int(np.array([3, 5, 7])[n])
    tlog = tlog + a
    with np.errstate(divide="ignore"):
        raise ValueError("bad r1")
    return tlog


def raise_in_symbolic_branch(n, xs):
    tlog = 0
    if xs[1] > 0:
        b = int(np.array([3, 5, 7])[n])  # (its result is never used: it still runs)
        tlog = tlog + b
        raise ValueError("bad r1")
    return tlog


def print_then_raise(n, xs):
    ag.print("before", n)
    if n > 100:
        return n
    raise KeyError("k")


def inverse_then_lookup(n, xs):
    m = np.reshape(xs, (2, 2)) * n
    y = np.linalg.inv(m)
    return {}["missing"] + y


def raise_from_python_division(n, xs):
    a = 60 // (n - 3)
    xs[1] = a
    return 60 // (3 - 3)


def unused_results_in_a_branch_and_loop_of_a_try(n, xs):
    r = 0.0
    try:
        if xs[1] > 0:
            a = np.linalg.inv(np.reshape(xs, (2, 2)) * n)  # noqa: F841 - never used, still runs
        k = 0
        while k < 2:
            b = xs[k + n + 2]  # noqa: F841
            k = k + 1
    except np.linalg.LinAlgError:
        r = 1.0
    except IndexError:
        r = 2.0
    return r


CASES = [unused_results_in_a_branch_and_loop_of_a_try, lookup_then_raise, division_in_try_finally_then_raise, raise_in_errstate_region,
         raise_in_symbolic_branch, print_then_raise, inverse_then_lookup,
         raise_from_python_division]
XS = np.array([1.0, 2.0, 3.0, 4.0])
ARGS = [np.int64(3), np.int64(1), np.int64(0)]


def _run(fn, n, capsys):
    xs = XS.copy()
    return outcome(fn, (n, xs), capsys), xs


@pytest.mark.parametrize("n", ARGS, ids=str)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["function", "jit", "to_graph"])
def test_errors_come_in_pythons_order(fn, n, how, capsys):
    want, want_xs = _run(fn, n, capsys)
    run = {"function": lambda: ag.function(fn), "jit": lambda: ag.function(fn, jit_compile=True),
           "to_graph": lambda: ag.to_graph(fn)}[how]()
    for _ in range(2):  # (the second call runs the cached graph)
        got, got_xs = _run(run, n, capsys)
        assert_same_outcome(got, want)
        np.testing.assert_array_equal(got_xs, want_xs)


def test_the_raise_shows_the_users_line():
    f = ag.function(lookup_then_raise)
    with pytest.raises(ValueError) as info:
        f(np.int64(1), XS.copy())
    lines = [entry.lineno + 1 for entry in info.traceback]
    code = lookup_then_raise.__code__
    assert code.co_firstlineno + 3 in lines  # the `raise` statement's line
