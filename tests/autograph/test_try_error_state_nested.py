"""What a graph `try`'s handler (or `finally` on the error path) sees of a variable when
the error comes from inside a nested `try` (one the user wrote, or the one a `finally`
wraps around the handlers): the value at the operation that raised, as in Python, read
from the nested `try`'s own operations (not from what its paths give once it finished).
Where the graph cannot tell the value, a `finally` that decides an effect or an error
from it is a ConversionError at the `try` naming the variable, never another outcome.

Each exact case runs eagerly, through `ag.function` (also `jit_compile=True`),
`ag.to_graph` and the output of `autograph convert`, on inputs taking different paths;
the outcome (value or exception), what `ag.print` printed and the arguments afterwards
must equal eager NumPy's. (Fuzz seed 480 of `graph_try,try_writes`, reduced.)"""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from tests.autograph.test_try_graph_writes import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def finally_index_after_a_branch(k, x):
    # the error is raised before the branch: `v` is still 0.5 in the `finally`, whose
    # index then raises its own IndexError (index k), replacing the body's
    v = 0.5
    try:
        b = int(np.array([3, 5, 7])[4 - k % 2])
        if x > 0:
            v = 7.0 + b
    finally:
        c = int(np.array([3, 5, 7])[k if v == 0.5 else 4])
    return c, v


def handler_after_a_nested_handler(k):
    # the outer handler sees `y` as the inner body left it where the index failed (1.0),
    # not what the inner handler would have made of it
    y = 0.0
    try:
        try:
            y = 1.0
            z = np.array([1.0, 2.0, 3.0])[k]
            y = 2.0 + z
        except FloatingPointError:
            y = 5.0
    except IndexError:
        return y
    return y


def nested_finally_log(k, xs):
    # a nested `try` inside the body of one with a `finally` and a handler
    log = 1
    try:
        try:
            log = log * 3
            xs[k] = 1.0
            log = log * 5
        finally:
            log = log + 7
        log = log * 11
    except IndexError:
        log = log + 100
    finally:
        xs[0] = log
    return log


CASES = [
    ("finally_index_after_a_branch", (np.int64(k), np.float64(x)))
    for k in (0, 1, 5) for x in (-1.0, 1.0)
] + [
    ("handler_after_a_nested_handler", (np.int64(k),)) for k in (1, 7)
] + [
    ("nested_finally_log", (np.int64(k), np.array([0.0, 1.0, 2.0]))) for k in (1, 4)
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_error_state_nested")[0]


def _copies(args):
    return tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args)


@pytest.mark.parametrize("name,args", CASES, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CASES)])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_the_state_at_an_error_inside_a_nested_try(name, args, mode, capsys, converted):
    fn = globals()[name]
    with np.errstate(divide="raise", over="ignore", invalid="ignore", under="ignore"):
        want = outcome(fn, _copies(args), capsys)
        if mode == "convert":
            run = ag.function(getattr(converted, name))
        elif mode == "to_graph":
            run = ag.to_graph(fn)
        else:
            run = ag.function(fn, jit_compile=mode == "jit")
        assert_same_outcome(outcome(run, _copies(args), capsys), want)
        if mode == "function":  # a second call runs the graph only
            assert_same_outcome(outcome(run, _copies(args), capsys), want)


def finally_index_after_a_loop(k, x):
    # (seed 480) `v` after an error in the body: 0.5, or what some iterations of the
    # loop made of it; the graph cannot tell, and the `finally`'s index depends on it
    u = 0.0
    v = 0.5
    try:  # refused
        b = int(np.array([3, 5, 7])[4 - k % 2])
        w = 0
        while 1 >= x / 4.0 and w < 3:
            w += 1
            v, u = u, v
    finally:
        c = int(np.array([3, 5, 7])[k if v + 1.0 != u + 2.0 else 4])
    return c + b


def finally_effect_after_a_loop(x, k):
    # `y > 0.5` decides an effect of the `finally`: never decided on a stand-in for `y`
    # (a zero the trace could read: no print where Python prints)
    y = 0.0
    try:  # refused
        y = 1.0
        z = np.array([1.0, 2.0, 3.0])[k]
        while y < x:
            y = y + z
    finally:
        if y > 0.5:
            ag.print("big")
    return y


@pytest.mark.parametrize("fn,args,name", [
    (finally_index_after_a_loop, (np.int64(5), np.float64(1.0)), "v"),
    (finally_effect_after_a_loop, (np.float64(3.0), np.int64(7)), "y"),
])
def test_a_finally_needing_a_value_the_graph_cannot_tell_is_refused(fn, args, name):
    lines, first = inspect.getsourcelines(fn)
    line = first + next(i for i, t in enumerate(lines) if "# refused" in t)
    with pytest.raises(ag.ConversionError, match=f"its `finally` has .*'{name}'") as info:
        ag.function(fn)(*args)
    assert info.value.lineno == line
