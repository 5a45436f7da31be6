"""Tracebacks of errors raised by a Function show the user's frames, as plain Python's do.

Differential: the frames of this file in the traceback of `ag.function(f)(x)` are the
frames of this file in the traceback of `f(x)` run as plain Python (file, line, function),
and no frame of autograph's own packages is left; the exception's type, message, notes and
`__cause__` are those of the unfiltered traceback (`ag.set_traceback_filtering(False)`).
"""
from __future__ import annotations

import os
import traceback

import numpy as np
import pytest

import autograph as ag

THIS = os.path.abspath(__file__)
PROJECT = tuple(os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(THIS))), d) + os.sep
                for d in ("autograph", "runtime"))


def frames(error: BaseException) -> list[tuple]:
    return [(os.path.abspath(f.filename), f.lineno, f.name)
            for f in traceback.extract_tb(error.__traceback__)]


def own_frames(error: BaseException) -> list[tuple]:
    return [(line, name) for path, line, name in frames(error) if path == THIS]


def raised(fn, *args) -> BaseException:
    try:
        fn(*args)
    except Exception as e:  # noqa: BLE001
        return e
    raise AssertionError(f"{fn} did not raise")


@pytest.fixture
def unfiltered():
    ag.set_traceback_filtering(False)
    yield
    ag.set_traceback_filtering(True)


# -- functions that fail ------------------------------------------------------------------
def bad_reshape(x):
    return x.reshape(7) + 1  # fails while tracing (a shape error)


def singular_inverse(x):
    y = x * 2.0
    return np.linalg.inv(y)  # fails when the graph runs (LinAlgError)


def helper(x):
    return x.reshape(5)  # fails while tracing, one call deep


def calls_helper(x):
    y = np.sin(x)
    return helper(y)


def chained(x):
    try:
        {}["missing"]
    except KeyError as e:
        raise ValueError("no such key") from e
    return x


def inverse_of_helper(x):
    return np.linalg.inv(x)  # fails when the graph runs, one call deep


def calls_inverse(x):
    return inverse_of_helper(x) + 1


CASES = [
    (bad_reshape, np.zeros(3)),
    (singular_inverse, np.zeros((2, 2))),
    (calls_helper, np.zeros(3)),
    (chained, np.zeros(3)),
    (calls_inverse, np.zeros((2, 2))),
]


@pytest.mark.parametrize("fn,x", CASES, ids=[c[0].__name__ for c in CASES])
def test_frames_are_the_users_as_in_plain_python(fn, x):
    eager = raised(fn, x)
    graph = raised(ag.function(fn), x)
    assert type(graph) is type(eager)
    # the line of `raised` that called, then the user's frames, as in Python
    assert own_frames(graph) == own_frames(eager)
    assert not [f for f in frames(graph) if f[0].startswith(PROJECT)]


def test_an_op_failing_at_run_time_shows_the_calls_that_recorded_it():
    f = ag.function(calls_inverse)
    f(np.eye(2))  # traced and run once without error: the failure is at run time
    error = raised(f, np.zeros((2, 2)))
    eager = raised(calls_inverse, np.zeros((2, 2)))
    assert isinstance(error, np.linalg.LinAlgError) and str(error) == str(eager)
    assert own_frames(error) == own_frames(eager)
    assert own_frames(error)[-1] == (inverse_of_helper.__code__.co_firstlineno + 1,
                                     "inverse_of_helper")
    assert not [f for f in frames(error) if f[0].startswith(PROJECT)]


def branchy_inverse(x):
    if np.sum(x) >= 0:
        x = inverse_of_helper(x)
    return x


def test_an_op_under_a_symbolic_branch_shows_the_branch():
    f = ag.function(branchy_inverse)
    f(np.eye(2))
    error = raised(f, np.zeros((2, 2)))
    own = own_frames(error)
    # the `if` line, the branch's line (converted code runs a branch as a function),
    # the call's line and the failing line: every line of the way, none of autograph's
    first = branchy_inverse.__code__.co_firstlineno
    assert [line for line, _ in own[1:]] == [first + 1, first + 2,
                                            inverse_of_helper.__code__.co_firstlineno + 1]


@pytest.mark.parametrize("fn,x", CASES, ids=[c[0].__name__ for c in CASES])
def test_filtering_changes_only_the_frames(fn, x, unfiltered):
    full = raised(ag.function(fn), x)
    ag.set_traceback_filtering(True)
    short = raised(ag.function(fn), x)
    assert type(short) is type(full) and str(short) == str(full)
    assert getattr(short, "__notes__", None) == getattr(full, "__notes__", None)
    assert type(short.__cause__) is type(full.__cause__)
    assert str(short.__cause__) == str(full.__cause__)
    assert [f for f in frames(full) if f[0].startswith(PROJECT)]  # everything is shown
    # the caller's frame stays; the rest are plain Python's frames (the test above), so
    # frames of functions the compiler generated (a branch, the parts of a `try`) fold
    # into their function's frame
    assert own_frames(full)[0] == own_frames(short)[0]


def test_the_cause_keeps_its_user_frames():
    error = raised(ag.function(chained), np.zeros(3))
    eager = raised(chained, np.zeros(3))
    assert isinstance(error.__cause__, KeyError)
    assert own_frames(error.__cause__) == own_frames(eager.__cause__)


class Model:
    @ag.function
    def method(self, x):
        return x.reshape(11)  # fails while tracing, in a method


def test_methods_and_concrete_functions_are_filtered():
    error = raised(Model().method, np.zeros(3))
    assert not [f for f in frames(error) if f[0].startswith(PROJECT)]
    assert own_frames(error)[-1][1] == "method"
    cf = ag.function(singular_inverse).get_concrete_function(np.eye(2))
    error = raised(cf, np.zeros((2, 2)))
    assert not [f for f in frames(error) if f[0].startswith(PROJECT)]
    assert own_frames(error)[-1] == (singular_inverse.__code__.co_firstlineno + 2,
                                     "singular_inverse")


def test_a_printed_traceback_shows_the_users_line():
    text = "".join(traceback.format_exception(raised(ag.function(singular_inverse),
                                                    np.zeros((2, 2)))))
    assert "return np.linalg.inv(y)  # fails when the graph runs" in text
    assert "autograph-graph" not in text and f"{os.sep}runtime{os.sep}" not in text


def test_switching_filtering_off_shows_every_frame(unfiltered):
    assert not ag.traceback_filtering()
    error = raised(ag.function(bad_reshape), np.zeros(3))
    assert any(f[0].startswith(PROJECT[1]) for f in frames(error))
