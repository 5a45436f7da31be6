"""A graph `try` whose handler, `else` or `finally` has its own temporaries (names it
assigns before reading and nothing else uses), in a symbolic loop or branch of that
part: they stay local to the part's generated function (converters/try_statements.py
`_state`), so the loop or branch does not see them read after it, and a name a `break`
/ `continue` skips is kept only where `finally` or the code after the `try` reads it
(converters/try_jumps.py). Was: a Diagnostic asking to define the temporary before the
loop. A name the part reads before assigning (its value from an earlier iteration)
stays the function's; the value a handler's final `return` leaves is "no value yet" before
the `try`, so an enclosing symbolic loop has one to carry. Each case runs eagerly, through `ag.function` (also
`jit_compile=True`) and `ag.to_graph`. Reduced from fuzz seeds (fuzz_try.py)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.autograph.test_try_graph_jumps import assert_same_outcome, outcome

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def loop_in_handler(n, x):
    b = n
    try:
        b = b + 60 // (n - 2)
    except ArithmeticError:
        w1 = 0
        while w1 < n:
            w1 += 1
            t3 = b * 2
            b = b + t3
    return b


def continue_in_nested_handler(n, x):
    a = 1
    tlog = 0
    w1 = 0
    while w1 < n:
        w1 += 1
        try:
            a = a + 60 // (n - w1)
        except ArithmeticError:
            try:
                raise ValueError("bad")
            except ValueError:
                if x > 2:
                    continue
                w3 = 0
                while w3 < n:
                    w3 += 1
                    tlog = tlog + w3
            a = a + 1
        tlog = (tlog + a) % 1000003
    return tlog


def branch_temporary_in_finally(n, x):
    s = x
    try:
        s = s + int(np.array([3, 5, 7])[n])
    finally:
        if x > 0:
            t5 = s * 2
            s = s + t5
    return s


def branch_temporary_in_else(n, x):
    s = x
    try:
        s = s + 60 // (n - 2)
    except ZeroDivisionError:
        s = -s
    else:
        if s > 1:
            t = s + 1
            s = t * t
    return s


def handler_reads_an_earlier_iteration(n, x):
    total = 0.0
    last = -1.0
    for i in range(4):
        try:
            total = total + 60 // (n - i)
        except ArithmeticError:
            if last > 0:
                total = total + last
            last = x + i
    return total, last


def handler_returns_in_a_symbolic_loop(n, x):
    u = x
    for i in range(n):  # (the return's value is carried: it has one before the `try`)
        try:
            u = u + 60 // (n - i - 1)
        except ZeroDivisionError:
            return u, i
        except FloatingPointError:
            return -u, i
    return u, -1


CASES = [handler_returns_in_a_symbolic_loop, loop_in_handler, continue_in_nested_handler, branch_temporary_in_finally,
         branch_temporary_in_else, handler_reads_an_earlier_iteration]
ARGS = [(np.int64(2), np.float64(1.5)), (np.int64(3), np.float64(2.5)),
        (np.int64(1), np.float64(-1.0)), (np.int64(0), np.float64(3.0))]


@pytest.mark.parametrize("args", ARGS, ids=str)
@pytest.mark.parametrize("fn", CASES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("how", ["function", "jit", "to_graph"])
def test_part_temporaries_match_python(fn, args, how, capsys):
    want = outcome(fn, args, capsys)
    run = {"function": lambda: ag.function(fn), "jit": lambda: ag.function(fn, jit_compile=True),
           "to_graph": lambda: ag.to_graph(fn)}[how]()
    assert_same_outcome(outcome(run, args, capsys), want)
