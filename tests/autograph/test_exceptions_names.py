"""Names bound by `except ... as e` in converted code follow Python: bound in the
handler, unbound after it, inside loops and branches. Each case runs the original
function and its converted form (`ag.to_graph`, and `ag.function` where arrays flow)
on the same inputs and compares results or the exception raised."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

TABLE = {"a": 2.0, "b": 3.0}


def handler_reads_name_in_loop(xs):
    out = []
    for x in xs:
        try:
            if x < 0:
                raise ValueError("negative")
            out.append(x)
        except ValueError as e:  # noqa: F841 - the name under test
            out.append(str(e))
    return out


def handler_in_range_loop(n):
    s = 0
    for i in range(n):
        try:
            s += 10 // (i - 2)
        except ZeroDivisionError as err:
            s += len(str(err))
    return s


def name_unbound_after_handler(x):
    try:
        x = x // 0
    except ZeroDivisionError as e:  # noqa: F841 - checked unbound below
        x = -1
    try:
        return e  # noqa: F821 - unbound here, as the test checks
    except NameError:
        return x


def name_kept_when_no_error(flag):
    e = 5
    for i in range(3):
        try:
            if flag and i == 1:
                raise ValueError(i)
        except ValueError as e:  # noqa: F841 - the name under test
            flag = False
        if i == 0:
            flag = flag + e
    return flag


def name_read_after_handler_ran(flag):
    e = 5
    for i in range(3):
        try:
            if flag and i == 1:
                raise ValueError(i)
        except ValueError as e:  # noqa: F841 - the name under test
            pass
        flag = flag + e
    return flag


def handler_in_branch(x, flag):
    if flag:
        try:
            y = 10 // x
        except ZeroDivisionError as e:  # noqa: F841 - checked unbound below
            y = len(e.args)
    else:
        y = 0
    return y


def nested_handlers_same_name(n):
    log = []
    for i in range(n):
        try:
            try:
                if i % 2:
                    raise KeyError(i)
                log.append(i)
            except KeyError as e:
                log.append(("inner", e.args[0]))
                raise IndexError(i) from e
        except IndexError as e:
            log.append(("outer", e.args[0], type(e.__cause__).__name__))
    return log


def while_loop_handler(n):
    i, total = 0, 0
    while i < n:
        try:
            total += [1, 2, 3][i]
        except IndexError as exc:
            total -= len(exc.args)
        i += 1
    return total


CASES = [
    (handler_reads_name_in_loop, ([1, -1, 2],)),
    (handler_in_range_loop, (5,)),
    (name_unbound_after_handler, (7,)),
    (name_kept_when_no_error, (False,)),
    (name_kept_when_no_error, (True,)),
    (name_read_after_handler_ran, (False,)),
    (name_read_after_handler_ran, (True,)),
    (handler_in_branch, (0, True)),
    (handler_in_branch, (5, True)),
    (handler_in_branch, (0, False)),
    (nested_handlers_same_name, (4,)),
    (while_loop_handler, (5,)),
]


def _outcome(fn, *args):
    try:
        return "returned", fn(*args)
    except Exception as e:  # the outcome compared is the exception's type and text
        return "raised", (type(e), str(e))


@pytest.mark.parametrize("fn,args", CASES, ids=lambda v: getattr(v, "__name__", None))
def test_converted_matches_python(fn, args):
    assert _outcome(ag.to_graph(fn), *args) == _outcome(fn, *args)


def accumulate(x, keys):
    total = x * 0
    for k in keys:
        try:
            scale = TABLE[k]
        except KeyError as e:
            scale = float(len(e.args))
        total = total + x * scale
    return total


def symbolic_loop_python_handler(x, n):
    total = x * 0
    for i in range(n):
        try:
            step = 6 // (i - 1)
        except ZeroDivisionError as e:  # noqa: F841 - checked unbound below
            step = len(str(e))
        total = total + x * step
    return total


@pytest.mark.parametrize("fn,args", [
    (accumulate, (np.arange(3.0), ("a", "z", "b"))),
    (symbolic_loop_python_handler, (np.arange(4.0), 4)),
], ids=["accumulate", "symbolic_loop_python_handler"])
@pytest.mark.parametrize("jit", [False, True])
def test_graph_matches_numpy(fn, args, jit):
    if jit:
        pytest.importorskip("numba")
    assert_same(ag.function(fn, jit_compile=jit)(*args), fn(*args))


def test_to_code_keeps_handler_name_local():
    code = ag.to_code(handler_in_range_loop)
    assert "err" not in code.split("for_stmt(")[1]  # not loop state
