"""A variable a graph `try`'s body assigns between two operations that may fail holds, in
the handler, the value of the point where the error was raised: from before the `try` if
the first failed, the new one if the second did (runtime/control_flow/try_marks.py), also
where the operations sit in a symbolic branch of the body.
Each case runs eagerly, through `ag.function` (also `jit_compile=True`), `ag.to_graph`
and the output of `autograph convert`, comparing the outcome (value with dtype, shape and
kind, or the exception) and what `ag.print` printed."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from tests.autograph.test_try_graph_jumps import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SINGULAR, REGULAR = np.zeros((2, 2)), np.array([[2.0, 1.0], [1.0, 3.0]])
LOW_RANK = np.array([[1.0, 2.0], [2.0, 4.0]])


def two_inverses(x, y):
    a = x * 1
    try:
        a = np.linalg.inv(x)
        b = a @ y
        a = np.linalg.inv(b)
    except np.linalg.LinAlgError:
        a = a + 100
    return a


def counter_between_lookups(k, xs):
    t = 0  # a Python int until the first point: the handler keeps its kind
    try:
        t = t + k
        q = xs[k]
        t = t * 3 + q.astype(np.int64)
        r = xs[k + 2]
        t = -1 + r.astype(np.int64)
    except IndexError:
        t = t + 1
    return t


def returned_from_the_handler(x, y):
    a = x + 1
    try:
        a = np.linalg.inv(x)
        ag.print("first inverse done")
        a = np.linalg.inv(a @ y)
    except np.linalg.LinAlgError:
        return a * 2
    return a


def two_variables_and_else(x, y):
    a, b = x, 0.5
    try:
        a = np.linalg.inv(x)
        b = np.sum(a)
        a = np.linalg.inv(a @ y)
        b = b + 1
    except np.linalg.LinAlgError:
        b = b * 10
    else:
        ag.print("no error")
    ag.print("b", b)
    return a, b


def changed_inside_a_symbolic_branch(x, y):
    u = np.sum(x)
    try:
        if np.sum(y) > 4:  # (a graph branch: the marks sit in it)
            u = u + 1.0
            a = np.linalg.inv(x)
            u = u + np.sum(a)
            a = np.linalg.inv(a @ y)
        else:
            a = np.linalg.inv(y)
    except np.linalg.LinAlgError:
        u = u * 10
    ag.print("u", u)
    return u


def changed_before_a_symbolic_branch(x, y):
    u = np.sum(x)
    try:
        u = u + 1.0
        if np.sum(y) > 4:
            a = np.linalg.inv(x)
            u = u + np.sum(a)
        a = np.linalg.inv(y)
    except np.linalg.LinAlgError:
        u = u * 10
    return u


CASES = [(f, args) for f in (two_inverses, returned_from_the_handler, two_variables_and_else,
                             changed_inside_a_symbolic_branch, changed_before_a_symbolic_branch)
         for args in ((SINGULAR, REGULAR), (REGULAR, LOW_RANK), (REGULAR, REGULAR),
                      (LOW_RANK, REGULAR))]
CASES += [(counter_between_lookups, (np.int64(k), np.arange(4.0))) for k in (-9, 0, 1, 2, 5)]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_marks")[0]


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_the_handler_sees_the_value_of_the_failing_point(fn, args, mode, capsys, converted):
    want = outcome(fn, args, capsys)
    if mode == "convert":
        run = ag.function(getattr(converted, fn.__name__))
    elif mode == "to_graph":
        run = ag.to_graph(fn)
    else:
        run = ag.function(fn, jit_compile=mode == "jit")
    assert_same_outcome(outcome(run, args, capsys), want)
    if mode == "function":  # a second call runs the graph only
        assert_same_outcome(outcome(run, args, capsys), want)


def test_the_graph_form_is_used():
    for fn, _ in CASES:
        assert "try_graph(" in ag.to_code(fn), fn.__name__
    cf = ag.function(two_inverses).get_concrete_function(SINGULAR, REGULAR)
    assert "try_mark_read" in cf.python_code


def assigned_inside_a_loop_of_the_body(xs, z):
    s = np.zeros((2, 2))
    try:  # refused
        k = 0
        while k < xs.shape[0] and np.sum(s) < 1e9:
            s = s + np.linalg.inv(xs[k])
            k = k + 1
        y = np.linalg.inv(z)
    except np.linalg.LinAlgError:
        return s  # which `s`: the loop's partial sum when the graph cannot tell
    return s + y


def test_a_variable_a_loop_of_the_body_assigns_is_still_refused():
    fn = assigned_inside_a_loop_of_the_body
    with pytest.raises(ag.ConversionError, match="handler reads 's'") as info:
        ag.function(fn)(np.stack([REGULAR, SINGULAR]), REGULAR)
    lines, first = inspect.getsourcelines(fn)
    assert info.value.lineno == first + next(
        i for i, line in enumerate(lines) if "# refused" in line)
