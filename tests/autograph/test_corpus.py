"""Runs every corpus function three ways and compares (see corpus.py)."""
from __future__ import annotations

import copy

import numpy as np
import pytest

import autograph as ag
from tests.autograph.corpus import CASES


def _python_value(x):
    return x.item() if isinstance(x, np.generic) else x


def _normalize(x):
    if isinstance(x, (tuple, list)):
        return [_normalize(v) for v in x]
    return np.asarray(x)


def _assert_same(expected, actual, what):
    e, a = _normalize(expected), _normalize(actual)
    if isinstance(e, list):
        assert isinstance(a, list) and len(a) == len(e), f"{what}: {actual!r} != {expected!r}"
        for x, y in zip(e, a):
            _assert_same(x, y, what)
        return
    np.testing.assert_allclose(a, e, rtol=1e-5, atol=1e-6, err_msg=what)


def test_corpus_is_large_enough():
    assert len(CASES) >= 80


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_converted_matches_python(case):
    converted = ag.to_graph(case.fn)
    for args in case.arg_sets:
        py_args = [_python_value(a) for a in args]
        expected = case.fn(*py_args)
        _assert_same(expected, converted(*py_args), f"{case.name}{tuple(py_args)}")


@pytest.mark.parametrize("case", [c for c in CASES if c.escapes], ids=lambda c: c.name)
def test_graph_writes_python_state_as_python_does(case):
    """These functions store a value computed from their arguments in an object or a
    global that outlives the call (`case.escapes` names the place). Every call of the
    graph writes it as Python does: after each call the place holds what it holds when
    the function runs eagerly on the same arguments, from the same starting state."""
    scope = case.fn.__globals__
    start = copy.deepcopy(eval(case.escapes, scope))  # noqa: S307 - a test's own name

    def reset():
        exec(f"{case.escapes} = _v", scope, {"_v": copy.deepcopy(start)})  # noqa: S102

    def np_args(args):
        return [_python_value(a) if i in case.static else a for i, a in enumerate(args)]
    reset()
    expected = []
    for args in case.arg_sets:
        expected.append((case.fn(*np_args(args)), copy.deepcopy(eval(case.escapes, scope))))
    reset()
    f = ag.function(case.fn)
    for args, (result, state) in zip(case.arg_sets, expected):
        _assert_same(result, f(*np_args(args)), f"{case.name}{tuple(args)}")
        _assert_same(state, eval(case.escapes, scope), f"{case.name}: {case.escapes}")
    reset()


@pytest.mark.parametrize("case", [c for c in CASES if c.graph], ids=lambda c: c.name)
def test_graph_matches_python(case):
    f = ag.function(case.fn)
    for args in case.arg_sets:
        py_args = [_python_value(a) for a in args]
        expected = case.fn(*py_args)
        np_args = [py_args[i] if i in case.static else a for i, a in enumerate(args)]
        _assert_same(expected, f(*np_args), f"{case.name}{tuple(py_args)} as a graph")
    # Python state the function changes from call to call is read as an input after one
    # more trace
    limit = 2 if any(cf.state is not None and cf.state.runs_python()
                     for cf in f.concrete_functions) else 1
    assert f.tracing_count <= limit, f"{case.name} traced {f.tracing_count} times"
