"""A `try` around code the compiler cannot trace: the compiler's own error is never taken
by the user's `except Exception`, which would silently run the handler on every call.
Each call equals eager Python or raises the documented refusal at a `try` (a variable a
nested `try` changes, read by the outer handler). A variable a loop inside a part of a
`try` leaves holding a value of the loop's graph is never a symbolic value of a finished
trace (`LeakedTensorError`)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from autograph.operators.exceptions import tracing_error
from tests.helpers import assert_same


def nested_finally_return_in_loop(n, xs):
    log = 0
    try:
        try:
            xs[n % 4] = xs[0]
        except ValueError:
            log = 1
        finally:
            log = log + 3
            for e in xs:
                if e == -e:
                    return -xs[1], log  # noqa: B012 - the construct under test
                if n:
                    break
        log = log + 1
    except Exception:  # a user's handler: must not see the compiler's errors
        log = 7
    return xs[0], log


def nested_finally_return_in_a_loop_no_writes(n, xs):
    log = 0
    try:
        try:
            log = log + int(xs[n] > 0)
        finally:
            for e in xs:
                if e < -1.5:
                    return e, log  # noqa: B012 - the construct under test
        log = log + 1
    except Exception:
        log = 7
    return xs[0], log


def nested_finally_return(n, xs):
    log = 0
    try:
        try:
            xs[1] = xs[0]
        finally:
            log = log + 3
            if xs[0] < 0:
                return xs[1], log  # noqa: B012 - the construct under test
        log = log + 1
    except Exception:
        log = 7
    return xs[0], log


@pytest.mark.parametrize("fn", [nested_finally_return_in_loop, nested_finally_return,
                                nested_finally_return_in_a_loop_no_writes])
@pytest.mark.parametrize("first", [-1.0, 0.0, 2.0])
def test_the_compilers_error_is_never_a_users_exception(fn, first):
    xs = np.array([first, -1.0, -2.0, 0.0])
    expected = fn(np.int64(3), xs.copy())
    try:
        got = ag.function(fn)(np.int64(3), xs.copy())
    except Exception as e:  # noqa: BLE001 - only the documented refusal may come out
        assert tracing_error(e) and isinstance(e, ag.ConversionError), repr(e)
        assert "this `try` cannot run in a graph" in str(e), repr(e)
        return
    assert_same(got, expected)
