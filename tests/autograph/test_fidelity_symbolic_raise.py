"""`raise` under a symbolic condition (a branch or a loop body that runs only when a
symbolic value says so) is a graph-side raise: the graph raises the user's exception
type with the user's message when, at run time, it reaches that point - and never on
inputs that do not. Each case compares the graph with the original Python function on
the same inputs (result or exception type + message, and what `ag.print` printed), with
the generated code, with the reference interpreter and with the unoptimized graph."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from runtime.exec.interpreter import run_graph
from runtime.frontend.signature import key_of
from tests.helpers import assert_same


class InputError(Exception):
    """A user-defined exception type (kept as is by the graph)."""


def guard(x, n):
    if n < 0:
        raise ValueError("n must be non-negative")
    return x * n


def guard_elif(x):
    if x > 10:
        raise OverflowError("too large")
    elif x < -10:
        raise InputError("too small", -10)
    else:
        y = x + 1
    return y


def guard_returning(x):
    if x > 0:
        return x * 2
    raise ValueError("x must be positive")


def raise_in_loop(x):
    s = np.float32(0)
    for i in range(x.shape[0]):
        if x[i] < 0:
            raise ValueError(f"negative entry (limit {0})")
        s += x[i]
    return s


def raise_in_while(x, limit):
    i = 0
    while x > 1:
        x = x / 2
        i += 1
        if i > limit:
            raise RuntimeError("did not converge")
    return x, i


def raise_after_print(x):
    ag.print("before")
    if x < 0:
        ag.print("in branch")
        raise ValueError("negative")
    ag.print("after")
    return x


def _check_n(n):
    if n > 100:
        raise InputError("n is too large")
    return n + 1


def raise_in_callee(x, n):
    if x > 0:
        n = _check_n(n)
    return n


def both_branches_raise(x):
    if x > 0:
        raise ValueError("positive")
    else:
        raise KeyError("not positive")


def nested(x, y):
    if x > 0:
        if y > 0:
            raise ValueError("both positive")
        x = x + y
    return x


def unused_result(x):
    y = x * 2  # noqa: F841 - computed and unused on purpose
    if x > 5:
        raise ValueError("x > 5")
    return x  # `y` unused: non-strict execution must still run the raise


f32 = np.float32
CASES = [
    (guard, [(f32(2), np.int64(3)), (f32(2), np.int64(-3)), (f32(1), np.int64(0))]),
    (guard_elif, [(f32(1),), (f32(11),), (f32(-11),)]),
    (guard_returning, [(f32(1),), (f32(-1),)]),
    (raise_in_loop, [(np.ones(3, f32),), (np.array([1, -1, 2], f32),),
                     (np.zeros(0, f32),)]),
    (raise_in_while, [(f32(8), np.int64(5)), (f32(1000), np.int64(3))]),
    (raise_after_print, [(f32(1),), (f32(-1),)]),
    (raise_in_callee, [(f32(1), np.int64(5)), (f32(1), np.int64(500)),
                       (f32(-1), np.int64(500))]),
    (both_branches_raise, [(f32(1),), (f32(-1),)]),
    (nested, [(f32(1), f32(-2)), (f32(1), f32(2)), (f32(-1), f32(2))]),
    (unused_result, [(f32(1),), (f32(6),)]),
]


def _outcome(fn, args, capsys):
    try:
        result, error = fn(*args), None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        result, error = None, (type(e), str(e))
    return result, error, capsys.readouterr().out


@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_graph_raises_exactly_when_python_does(fn, inputs, capsys):
    f = ag.function(fn)
    for args in inputs:
        expected = _outcome(fn, args, capsys)
        actual = _outcome(f, args, capsys)
        assert actual[1] == expected[1], (args, actual[1], expected[1])
        assert actual[2] == expected[2]
        if expected[1] is None:
            assert_same(actual[0], expected[0])


@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_interpreter_and_unoptimized_graph_agree(fn, inputs, capsys):
    f = ag.function(fn)
    for args in inputs:
        expected = _outcome(fn, args, capsys)
        cf = f.get_concrete_function(*args)
        capsys.readouterr()
        leaves: list = []
        for a in args:
            key_of(a, leaves)
        for graph in (cf.graph, cf.optimized_graph):
            try:
                run_graph(graph, leaves)
                error = None
            except Exception as e:  # noqa: BLE001
                error = (type(e), str(e))
            assert error == expected[1]


def test_guard_does_not_fire_on_valid_input_and_traces_once():
    f = ag.function(guard)
    for n in (0, 1, 5):
        assert_same(f(f32(2), np.int64(n)), guard(f32(2), np.int64(n)))
    assert f.tracing_count == 1
    with pytest.raises(ValueError) as info:
        f(f32(2), np.int64(-1))
    assert str(info.value) == "n must be non-negative"
    assert any("raised by the graph at run time" in n for n in info.value.__notes__)


def test_user_exception_type_and_args_are_kept():
    with pytest.raises(InputError) as info:
        ag.function(guard_elif)(f32(-20))
    assert info.value.args == ("too small", -10)


def test_the_raise_is_a_graph_node():
    cf = ag.function(guard).get_concrete_function(f32(2), np.int64(3))
    assert "raise(" in str(cf.graph)
    assert "raise" in cf.python_code


def symbolic_message(x):
    if x > 0:
        raise ValueError(f"x is {x}")
    return x


def symbolic_arg(x):
    if x > 0:
        raise ValueError("x is", x)
    return x


@pytest.mark.parametrize("fn", [symbolic_message, symbolic_arg])
def test_message_from_a_symbolic_value_is_refused(fn):
    # an f-string already refuses to turn the value into text (GraphModeError, a
    # TypeError); a symbolic exception argument is refused by the raise itself
    with pytest.raises((ValueError, TypeError)) as info:
        ag.function(fn)(f32(-1))
    msg = str(info.value)
    assert "symbolic" in msg and "ag.print" in msg
    assert f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno + 2}" in msg


def test_python_condition_still_raises_while_tracing():
    """A Python-valued condition is Python: the raise happens when the call reaches it."""
    f = ag.function(guard)
    with pytest.raises(ValueError, match="n must be non-negative"):
        f(f32(2), -3)
    assert_same(f(f32(2), 3), guard(f32(2), 3))


def op_error_in_branch(x):
    if x > 0:
        x = np.reshape(x, (2, 2))  # an error of the trace itself, not a user `raise`
    return x


def test_errors_of_the_trace_are_not_deferred():
    with pytest.raises(Exception) as info:
        ag.function(op_error_in_branch)(f32(1))
    assert "raised by the graph" not in str(getattr(info.value, "__notes__", ""))
