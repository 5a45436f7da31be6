"""Runs every corpus function three ways and compares (see corpus.py)."""
from __future__ import annotations

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
def test_graph_refuses_state_that_would_hold_symbolic_values(case):
    """These functions store a value computed from their arguments in an object or a
    global that outlives the call: Python leaves a number there, a cached graph would
    leave a dead symbolic value (and stale state on later calls). The trace fails,
    naming the place; converted code on Python values still matches (above)."""
    args = case.arg_sets[0]
    np_args = [_python_value(a) if i in case.static else a for i, a in enumerate(args)]
    with pytest.raises(ValueError, match="holds symbolic values") as info:
        ag.function(case.fn)(*np_args)
    assert f"  {case.escapes}: " in str(info.value), str(info.value)


@pytest.mark.parametrize("case", [c for c in CASES if c.graph], ids=lambda c: c.name)
def test_graph_matches_python(case):
    f = ag.function(case.fn)
    for args in case.arg_sets:
        py_args = [_python_value(a) for a in args]
        expected = case.fn(*py_args)
        np_args = [py_args[i] if i in case.static else a for i, a in enumerate(args)]
        _assert_same(expected, f(*np_args), f"{case.name}{tuple(py_args)} as a graph")
    assert f.tracing_count == 1, f"{case.name} traced {f.tracing_count} times"
