"""`return` / `break` / `continue` inside `finally` around graph operations, as Python runs
them: the jump drops the error passing through and the jump (or value to return) pending
from the body, a handler or `else`; effects before it stay done; where `finally` does
not jump, the error or pending jump goes on (converters/try_jumps.py,
`lower_finally_jumps`). Also under a symbolic condition, in Python loops and symbolic
loops.

Each case runs eagerly, through `ag.function` (also `jit_compile=True`), `ag.to_graph`
and the output of `autograph convert`, on inputs that fail at different points, and
compares the outcome (value with dtype, shape and kind, or the exception), what
`ag.print` printed and what the arguments hold afterwards."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import converted_module
from tests.autograph.test_try_graph_writes import Box, assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SINGULAR, REGULAR = np.zeros((2, 2)), np.array([[2.0, 1.0], [1.0, 3.0]])


def return_in_finally(x):
    try:
        y = np.linalg.inv(x)
        ag.print("inverted", y[0, 0])
    finally:
        return 5.0  # noqa: B012 - the construct under test


def conditional_return_in_finally(x, c):
    try:
        # (an effect before the operation that fails; after it, `y` would hold the
        # inverse where `ag.print` fails and no value where `inv` does: the graph cannot
        # tell which in the `finally`'s catch-all, test_try_fuzz_regressions.py)
        ag.print("inverting")
        y = np.linalg.inv(x)
        return y
    except ValueError:
        y = x
    finally:
        ag.print("finally")
        if c > 0:
            return x * 0 - 1  # noqa: B012 - the construct under test
        ag.print("no jump")
    return y + 1


def return_drops_a_handlers_error(x, c):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        raise ValueError("no inverse")  # noqa: B904 - the chained error under test
    finally:
        if c > 0:
            return x[0] * 2  # noqa: B012 - the construct under test
    return y[0]


def return_keeps_the_writes_before_the_error(box, x, c):
    y = x * 0  # (bound at every point where the body may fail)
    try:
        box.count += 1
        y = np.linalg.inv(x)
        box.count += 10
    finally:
        if c > 0:
            return x[0] * box.count  # noqa: B012 - the construct under test
    return y[0]


def break_in_finally(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            s = s + np.linalg.inv(xs[k])
        finally:
            if np.sum(s) > 100 or k == 1:
                break  # noqa: B012 - the construct under test
            s = s * 2
    return s


def continue_in_finally_symbolic_loop(xs, n):
    s, k = np.zeros((2, 2)), 0
    while k < n:
        k = k + 1
        try:
            s = s + np.linalg.inv(xs[k - 1])
            ag.print("added", k)
        finally:
            if np.sum(xs[k - 1]) < 0.5:
                continue  # noqa: B012 - the construct under test
            s = s * 2
    return s


def finally_jump_over_a_pending_break(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            s = s + np.linalg.inv(xs[k])
            if np.sum(s) > 1:
                break
        finally:
            ag.print("k", k)
            if k == 0:
                continue  # noqa: B012 - the construct under test
        s = s + 100
    return s


MIXED = np.stack([REGULAR, SINGULAR, REGULAR * 2])
SMALL = np.stack([REGULAR * 0.1, SINGULAR, REGULAR])
CASES = [
    ("return_in_finally", lambda v: (v,), v) for v in ("singular", "regular")
] + [
    ("conditional_return_in_finally", lambda v, c=c: (v, c), v)
    for v in ("singular", "regular") for c in (np.int64(1), np.int64(0), 1, 0)
] + [
    ("return_drops_a_handlers_error", lambda v, c=c: (v, c), v)
    for v in ("singular", "regular") for c in (np.int64(1), np.int64(0))
] + [
    ("return_keeps_the_writes_before_the_error", lambda v, c=c: (Box(), v, c), v)
    for v in ("singular", "regular") for c in (np.int64(1), np.int64(0))
] + [
    ("break_in_finally", lambda v: (v,), v) for v in ("mixed", "small", "regular50")
] + [
    ("continue_in_finally_symbolic_loop", lambda v, n=n: (v, n), v)
    for v in ("mixed", "small") for n in (np.int64(2), np.int64(3))
] + [
    ("finally_jump_over_a_pending_break", lambda v: (v,), v) for v in ("mixed", "small")
]
INPUTS = {"singular": SINGULAR, "regular": REGULAR, "mixed": MIXED, "small": SMALL,
          "regular50": np.stack([REGULAR * 50, REGULAR])}


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_finally_jumps")[0]


@pytest.mark.parametrize("name,make,value", CASES, ids=[f"{n}-{v}" for n, _, v in CASES])
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_a_jump_in_finally_is_exact(name, make, value, mode, capsys, converted):
    fn = globals()[name]
    with np.errstate(all="ignore"):
        want = outcome(fn, make(INPUTS[value]), capsys)
    if mode == "convert":
        run = ag.function(getattr(converted, name))
    elif mode == "to_graph":
        run = ag.to_graph(fn)
    else:
        run = ag.function(fn, jit_compile=mode == "jit")
    with np.errstate(all="ignore"):
        assert_same_outcome(outcome(run, make(INPUTS[value]), capsys), want)
        if mode == "function":  # a second call runs the graph only
            assert_same_outcome(outcome(run, make(INPUTS[value]), capsys), want)


def test_the_graph_form_is_used():
    for name, _, _ in CASES:
        assert "try_graph(" in ag.to_code(globals()[name]), name
    cf = ag.function(return_in_finally).get_concrete_function(SINGULAR)
    assert "reraise" in cf.python_code or "try:" in cf.python_code


def unbound_where_the_body_fails(box, x, c):
    try:  # refused
        box.count += 1
        y = np.linalg.inv(x)
        box.count += 10
    finally:
        if c > 0:
            return x[0] * box.count  # noqa: B012 - the construct under test
    return y[0]


def test_a_variable_unbound_where_the_body_fails_is_named_at_the_try():
    f = ag.function(unbound_where_the_body_fails)
    f(Box(), SINGULAR, np.int64(1))  # (the first trace: the count is a Python number)
    with pytest.raises(ag.ConversionError, match="'y'") as info:
        f(Box(), SINGULAR, np.int64(1))  # the count is a graph input now
    lines, first = inspect.getsourcelines(unbound_where_the_body_fails)
    assert info.value.lineno == first + next(
        i for i, line in enumerate(lines) if "# refused" in line)


def python_values_only(n):
    out = [n]
    try:
        out.append(10 // (n - 2))
    finally:
        if n > 3:
            return out  # noqa: B012 - the construct under test
    return out + [0]


@pytest.mark.parametrize("n", [0, 3, 5, 2])
def test_python_values_run_as_python(n):
    for run in (ag.function(python_values_only), ag.to_graph(python_values_only)):
        try:
            want = python_values_only(n)
        except ZeroDivisionError:
            with pytest.raises(ZeroDivisionError):
                run(n)
            continue
        assert run(n) == want
