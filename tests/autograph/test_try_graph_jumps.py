"""`break` / `continue` / `return` anywhere in a graph `try` (body, handlers, `else`), in
Python loops and symbolic loops, take Python's path, with `finally` running where
Python runs it (converters/try_jumps.py).

Each case runs eagerly (the original function), through `ag.function` (also with
`jit_compile=True`), through `ag.to_graph` on NumPy values and through the output of
`autograph convert`, and compares the outcome (the value with its dtype and shape, or
the exception) and what `ag.print` printed."""
from __future__ import annotations

import inspect

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same, converted_module

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

SINGULAR, REGULAR = np.zeros((2, 2)), np.array([[2.0, 1.0], [1.0, 3.0]])
MIXED = np.stack([REGULAR, SINGULAR, REGULAR * 2])
ALL_REGULAR = np.stack([REGULAR, REGULAR * 3])


def break_in_handler_python_loop(xs):
    s = np.zeros((2, 2))
    for k in range(2):
        try:
            s = s + np.linalg.inv(xs[k])
        except np.linalg.LinAlgError:
            break
        s = s * 2
    return s


def break_in_handler_with_finally(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            s = s + np.linalg.inv(xs[k])
        except np.linalg.LinAlgError:
            s = s - 1
            break
        finally:
            ag.print("finally", k)
        s = s * 2
    return s


def continue_in_body(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            if np.sum(xs[k]) > 10:
                continue
            s = s + np.linalg.inv(xs[k])
        except np.linalg.LinAlgError:
            s = s - 1
        finally:
            ag.print("k", k)
        s = s + 0.5
    return s


def continue_in_handler_while(xs):
    s, k = np.zeros((2, 2)), 0
    while k < xs.shape[0]:
        k = k + 1
        try:
            s = s + np.linalg.inv(xs[k - 1])
        except np.linalg.LinAlgError:
            continue
        s = s * 2
    return s


def return_in_the_middle(x):
    try:
        y = np.linalg.inv(x)
        if np.sum(y) > 1:
            return y
        y = y * 2
    except np.linalg.LinAlgError:
        y = x
    return y + 1


def return_in_handler_not_last(x):
    try:
        y = np.linalg.inv(x)
    except np.linalg.LinAlgError:
        if np.sum(x) == 0:
            return x - 1
        y = x * 3
    return y


def return_in_loop_body(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            t = np.linalg.inv(xs[k])
            if np.sum(t) < 0.5:
                return s
            s = s + t
        except np.linalg.LinAlgError:
            s = s * 10
    return s


def else_skipped_by_a_jump(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            t = np.linalg.inv(xs[k])
            if np.sum(t) < 0.5:
                continue
        except np.linalg.LinAlgError:
            s = s - 1
        else:
            s = s + t
    return s


def break_in_nested_try_with_finally(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            try:
                t = np.linalg.inv(xs[k])
                if np.sum(t) < 0.5:
                    break
            finally:
                ag.print("inner", k)
            s = s + t
        except np.linalg.LinAlgError:
            s = s - 1
    return s


def nested_loop_keeps_its_own_break(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            for j in range(3):
                if j == 1:
                    break
                s = s + np.linalg.inv(xs[k])
            else:
                continue  # never: the inner loop always breaks
            s = s * 2
        except np.linalg.LinAlgError:
            break
    return s


def python_condition_break(xs, stop):
    s = np.zeros((2, 2))
    for k in range(3):
        try:
            if k == stop:
                break
            s = s + np.linalg.inv(xs[k])
        except np.linalg.LinAlgError:
            s = s + 100
    return s


def break_after_error_in_handler_python_value(xs):
    found = -1
    for k in range(3):
        try:
            np.linalg.inv(xs[k])
        except np.linalg.LinAlgError:
            found = k
            break
    return found


def handler_reads_a_variable_a_branch_assigns_after_the_error(x):
    s = x * 1
    try:
        if np.sum(x) >= 0:
            s = s + np.linalg.inv(x)  # the error comes before `s` is rebound
    except np.linalg.LinAlgError:
        s = s - 1
    return s


def return_in_nested_loop(xs):
    s = np.zeros((2, 2))
    try:
        for k in range(xs.shape[0]):
            for j in range(2):
                if k == 1 and j == 1:
                    return s, k
                s = s + np.linalg.inv(xs[k]) * j
        else:
            s = s + 100
    except np.linalg.LinAlgError:
        s = -np.ones((2, 2))  # (not `s - 1`: which `s` the loop held is not known)
    return s, -1


def tuple_state_refused(x):
    try:  # refused
        pair = (np.linalg.inv(x), x)
    except np.linalg.LinAlgError:
        pair = (x, x)
    return pair


def test_a_variable_whose_structure_changes_in_the_try_is_refused_at_the_try():
    with pytest.raises(ag.ConversionError, match="'pair' holds a value of another structure"):
        ag.function(tuple_state_refused)(SINGULAR)


CAUGHT: list = []


def own_errors_pass_user_handlers(x, n):
    s = x * 0
    try:
        for i in range(3):
            s = s + x
            if i == n:  # (the `try` stays Python: it changes a list in place)
                CAUGHT.append(1)
    except Exception:  # must not catch the compiler's error about `i == n`
        s = -x
    return s


def test_a_handler_never_catches_the_compilers_own_errors():
    with pytest.raises(ag.ConversionError, match="symbolic"):
        ag.function(own_errors_pass_user_handlers)(np.ones(2), np.int64(1))


def updates_a_number_argument(x, m):
    try:
        x -= 1.5  # (a number: rebound, as in Python)
        q = np.linalg.inv(m)
    except np.linalg.LinAlgError:
        q = m
    return x, q


def _checked_inverse(x):
    if np.sum(x) == 0:
        raise ValueError("all zero")
    return np.linalg.inv(x)


def error_while_computing_the_returned_value(x):
    try:
        return _checked_inverse(x)  # (the return does not happen when this raises)
    except ValueError:
        pass
    return x + 1


def returns_on_every_path_through_finally(x):
    try:
        if np.sum(x) > 0:
            return x * 2
        return -x
    finally:
        ag.print("finally")


def temporary_after_a_jump_in_a_symbolic_loop(xs):
    s = np.zeros((2, 2))
    for k in range(xs.shape[0]):
        try:
            if np.sum(xs[k]) > 10:
                continue
            t = np.linalg.inv(xs[k])  # (`t` is the body's own: not read after the `try`)
            s = s + t
        except np.linalg.LinAlgError:
            s = s - 1
    return s


CASES = [
    (temporary_after_a_jump_in_a_symbolic_loop, (MIXED,)),
    (error_while_computing_the_returned_value, (SINGULAR,)),
    (error_while_computing_the_returned_value, (REGULAR,)),
    (returns_on_every_path_through_finally, (REGULAR,)),
    (returns_on_every_path_through_finally, (-REGULAR,)),
    (updates_a_number_argument, (np.float64(2.0), SINGULAR)),
    (updates_a_number_argument, (np.float64(2.0), REGULAR)),
    (return_in_nested_loop, (MIXED,)), (return_in_nested_loop, (ALL_REGULAR,)),
    (return_in_nested_loop, (np.stack([REGULAR]),)),
    (handler_reads_a_variable_a_branch_assigns_after_the_error, (SINGULAR,)),
    (handler_reads_a_variable_a_branch_assigns_after_the_error, (REGULAR,)),
    (handler_reads_a_variable_a_branch_assigns_after_the_error, (-REGULAR,)),
    (break_in_handler_python_loop, (MIXED,)), (break_in_handler_python_loop, (ALL_REGULAR,)),
    (break_in_handler_with_finally, (MIXED,)), (break_in_handler_with_finally, (ALL_REGULAR,)),
    (continue_in_body, (MIXED,)), (continue_in_body, (ALL_REGULAR,)),
    (continue_in_handler_while, (MIXED,)), (continue_in_handler_while, (ALL_REGULAR,)),
    (return_in_the_middle, (REGULAR,)), (return_in_the_middle, (REGULAR * 10,)),
    (return_in_the_middle, (SINGULAR,)),
    (return_in_handler_not_last, (SINGULAR,)), (return_in_handler_not_last, (SINGULAR + 1,)),
    (return_in_handler_not_last, (REGULAR,)),
    (return_in_loop_body, (MIXED,)), (return_in_loop_body, (ALL_REGULAR,)),
    (return_in_loop_body, (np.stack([SINGULAR, REGULAR * 10]),)),
    (else_skipped_by_a_jump, (MIXED,)), (else_skipped_by_a_jump, (ALL_REGULAR,)),
    (break_in_nested_try_with_finally, (MIXED,)),
    (break_in_nested_try_with_finally, (ALL_REGULAR,)),
    (nested_loop_keeps_its_own_break, (MIXED,)),
    (nested_loop_keeps_its_own_break, (np.stack([SINGULAR, REGULAR]),)),
    (python_condition_break, (MIXED, 1)), (python_condition_break, (MIXED, 2)),
    (python_condition_break, (np.stack([REGULAR] * 3), 5)),
    (break_after_error_in_handler_python_value, (MIXED,)),
    (break_after_error_in_handler_python_value, (np.stack([REGULAR] * 3),)),
]


def outcome(fn, args, capsys):
    try:
        with np.errstate(divide="raise"):
            result = "value", fn(*args)
    except Exception as e:  # noqa: BLE001 - the outcome compared
        result = "error", (type(e), e.args)
    return result, capsys.readouterr().out


def assert_same_outcome(got, want):
    (kind, value), printed = got
    assert kind == want[0][0], (got, want)
    if kind == "value":
        assert_same(value, want[0][1])
    else:
        assert value == want[0][1]
    assert printed == want[1]


def _converted_module(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_try_jumps")[0]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return _converted_module(tmp_path_factory)


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", ""))
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph", "convert"])
def test_matches_python(fn, args, mode, capsys, converted):
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


def test_the_graph_form_is_used(converted):
    for fn, _ in CASES:
        assert "try_graph(" in ag.to_code(fn), fn.__name__
        assert "try_graph(" in inspect.getsource(getattr(converted, fn.__name__))


def handler_reads_a_variable_a_branch_assigns_before_the_error(x):
    s = x * 1
    try:
        if np.sum(x) >= 0:
            s = s * 2
            s = s + np.linalg.inv(x)
    except np.linalg.LinAlgError:
        s = s - 1  # the value of the point in the branch where it failed (try_marks.py)
    return s


@pytest.mark.parametrize("x", [SINGULAR, np.eye(2), -np.eye(2) - 1], ids=str)
@pytest.mark.parametrize("mode", ["function", "jit", "to_graph"])
def test_a_variable_a_branch_assigns_before_the_error_matches_python(x, mode, capsys):
    fn = handler_reads_a_variable_a_branch_assigns_before_the_error
    run = ag.to_graph(fn) if mode == "to_graph" else ag.function(fn, jit_compile=mode == "jit")
    assert_same_outcome(outcome(run, (x,), capsys), outcome(fn, (x,), capsys))
