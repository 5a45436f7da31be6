"""Autograph's warnings point at the user's line (`w.filename`, `w.lineno`), so the
default "once per location" and filters by module or line work as for the user's code."""
from __future__ import annotations

import importlib.util
import warnings

import numpy as np
import pytest

import autograph as ag

THIS = __file__


def caught(fn, category) -> list:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        fn()
    return [w for w in seen if issubclass(w.category, category)]


def scaled(x, k):
    return x * k


def test_retracing_warning_points_at_the_call():
    f = ag.function(scaled)

    def calls():
        for k in range(6):
            f(np.ones(2), k)  # the call that retraces
    found = caught(calls, ag.RetracingWarning)
    assert len(found) == 1
    line = calls.__code__.co_firstlineno + 2
    assert (found[0].filename, found[0].lineno) == (THIS, line)


def test_trace_limit_warning_points_at_the_call():
    f = ag.function(scaled, max_traces=2)

    def calls():
        for k in range(3):
            f(np.ones(2), k)  # the call past the limit
    found = [w for w in caught(calls, ag.RetracingWarning) if "limit" in str(w.message)]
    assert [(w.filename, w.lineno) for w in found] == [(THIS, calls.__code__.co_firstlineno + 2)]


def test_the_default_filter_shows_a_warning_once_per_line():
    f = ag.function(scaled, max_traces=None)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        for k in range(12):
            f(np.ones(2), k)
    assert len([w for w in seen if w.category is ag.RetracingWarning]) == 1


def steps(x):
    # (ufuncs with a 0-d operand stay NumPy calls; `tanh` / `exp` of arrays compile)
    y = np.arctan2(x, 0.5) + 1.0
    z = np.hypot(y, 0.5) * 2.0
    return np.sum(z * y)


@pytest.mark.slow
@pytest.mark.skipif(importlib.util.find_spec("numba") is None, reason="needs numba")
def test_jit_fallbacks_are_one_warning_at_the_call_listing_each_line():
    f = ag.function(steps, jit_compile=True)
    x = np.linspace(0.0, 1.0, 10007)  # a size of its own: nothing noted before

    def call():
        f(x)  # compiles
    found = caught(call, ag.JitFallbackWarning)
    assert len(found) == 1
    w = found[0]
    assert (w.filename, w.lineno) == (THIS, call.__code__.co_firstlineno + 1)
    first = steps.__code__.co_firstlineno
    text = str(w.message)
    for op, line in (("arctan2", first + 2), ("hypot", first + 3), ("sum", first + 4)):
        assert f"`{op}` at {THIS}:{line}" in text
    assert "assign_variable" not in text
    assert caught(call, ag.JitFallbackWarning) == []  # not noted again


def log_ratio(x, y):
    r = x / y  # divide by zero for y == 0
    return np.log(r)  # divide by zero for x == 0


def numpy_warnings(fn, *args, action="always") -> list:
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter(action)
        fn(*args)
    return [(w.category, str(w.message), w.filename, w.lineno) for w in seen]


@pytest.mark.parametrize("x,y", [(np.zeros(2), np.ones(2)), (np.ones(2), np.zeros(2)),
                                 (np.zeros(2), np.zeros(2))])
def test_numpy_warnings_in_graphs_are_at_the_users_line_as_eagerly(x, y):
    f = ag.function(log_ratio)
    eager = numpy_warnings(log_ratio, x, y)
    assert eager and numpy_warnings(f, x, y) == eager
    assert numpy_warnings(f, x, y) == eager  # a call that reuses the trace too


def test_errstate_and_filters_still_apply_to_graph_warnings():
    f = ag.function(log_ratio)
    x, y = np.zeros(2), np.ones(2)
    f(np.ones(2), np.ones(2))  # traced without warning
    with np.errstate(divide="ignore"):
        assert numpy_warnings(f, x, y) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with warnings.catch_warnings(record=True) as seen:
            f(x, y)
        assert seen == []
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning, match="divide by zero") as info:
            f(x, y)
    own = [(fs.lineno, fs.name) for fs in __import__("traceback").extract_tb(info.tb)
           if fs.filename == THIS]
    assert own[-1] == (log_ratio.__code__.co_firstlineno + 2, "log_ratio")
    # "default": once per location, as for eager NumPy code called in a loop
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("default")
        for _ in range(3):
            f(x, y)
    assert len(seen) == 1
