"""A variable that is a Python number before a symbolic loop and may become a NumPy value
in it (`s = 0`, then `s = s + x[i]` in a graph `try`), read by a handler where an
operation of the body raised: the handler gets the kind the failing point's path gives,
so the function returns `-1` (int) where Python does, not `np.int64(-1)`. Each mark of
the failing points stores the code and number of its value beside the value
(runtime/control_flow/try_marks.py `_kind_marks`); before, a mark inside a branch of the
body dropped them. Found by the port of TensorFlow AutoGraph's reference tests (a
`return` and a `break` in a `try` in a loop over an array). Each case runs eagerly,
through `ag.function` (also `jit_compile=True`), `ag.to_graph` and `autograph convert`."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from tests.autograph.test_try_graph_jumps import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def return_in_try_in_loop(xs):
    s = 0
    for v in xs:
        try:
            if v > 2:
                return s, v
            s = s + np.take(xs, v)
        except IndexError:
            s = s - 1
    return s, -1


def break_in_try_in_loop(xs):
    s = 0
    for v in xs:
        try:
            if v > 2:
                break
            s = s + np.take(xs, v)
        except IndexError:
            s = s - 1
    return s


def branch_in_try_in_loop(xs):
    s = 0
    for v in xs:
        try:
            if v < 5:
                s = s + np.take(xs, v)
        except IndexError:
            pass
    return s


def both_branches_may_fail(xs):
    s = 0
    for v in xs:
        try:
            if v > 1:
                s = s + np.take(xs, v)
            else:
                s = s - np.take(xs, v + 2)
        except IndexError:
            s = s * 2
    return s


def assigned_between_failing_points(xs):
    s = 0
    for v in xs:
        try:
            t = np.take(xs, v)
            s = s + t
            t = np.take(xs, v + 1)
        except IndexError:
            s = s + 10
    return s


def assigned_twice_in_a_branch(xs):
    s = 0
    for v in xs:
        try:
            if v < 5:
                s = s + 1
                s = s + np.take(xs, v)
        except IndexError:
            pass
    return s


def a_number_on_one_branch(xs):
    s = 0
    for v in xs:
        try:
            if v < 5:
                s = s + np.take(xs, v)
            else:
                s = 7
            np.take(xs, v + 1)
        except IndexError:
            s = s + 1
    return s


def float_number_in_while(x):
    s = 0.5
    i = 0
    while i < x.size:
        try:
            if x[i] > 0:
                s = s + np.take(x, int(x[i]))
        except IndexError:
            s = s * 3
        i += 1
    return s


CASES = [return_in_try_in_loop, break_in_try_in_loop, branch_in_try_in_loop,
         both_branches_may_fail, assigned_between_failing_points, assigned_twice_in_a_branch,
         a_number_on_one_branch]
ARGS = [np.array([], dtype=np.int64), np.array([1]), np.array([3]), np.array([0, 1]),
        np.array([2, 0, 1]), np.array([0, 0, 7]), np.array([9, 0]), np.array([7])]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_kinds")[0]


def _run(fn, how, converted):
    if how == "convert":
        return ag.function(getattr(converted, fn.__name__))
    if how == "to_graph":
        return ag.to_graph(fn)
    return ag.function(fn, jit_compile=how == "jit")


@pytest.mark.parametrize("xs", ARGS, ids=str)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["function", "jit", "to_graph", "convert"])
def test_a_handler_gets_the_kind_of_the_failing_point(fn, xs, how, capsys, converted):
    want = outcome(fn, (xs.copy(),), capsys)
    assert_same_outcome(outcome(_run(fn, how, converted), (xs.copy(),), capsys), want)


@pytest.mark.parametrize("x", [np.array([]), np.array([1.0]), np.array([5.0, 1.0]),
                               np.array([-1.0, 0.0])], ids=str)
@pytest.mark.parametrize("how", ["function", "jit", "to_graph", "convert"])
def test_a_float_number_in_a_while_loop(x, how, capsys, converted):
    want = outcome(float_number_in_while, (x,), capsys)
    got = outcome(_run(float_number_in_while, how, converted), (x,), capsys)
    assert_same_outcome(got, want)
