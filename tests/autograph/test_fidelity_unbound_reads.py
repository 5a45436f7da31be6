"""A read of a variable that no path to it has bound, inside a branch or loop body the
graph takes only when a symbolic condition holds: Python raises UnboundLocalError on
the path that reads it, and runs on elsewhere. The read was raised while tracing (every
call failed), and where it did reach the graph it raised NameError ("cannot access free
variable"), since the branch is a function of its own reading the variable's cell
(fuzz feature `partly_bound`, whose programs now leave `pb0` unbound on every path in a
quarter of the seeds: 27 of 300 seeds failed so on the previous main). A symbolic `if`
one branch of which always raises, the other leaving a variable unbound, gives the
variable unbound (it was a Diagnostic). The same read in a loop body that runs as Python
(a `range` loop with `break` is walked through its body's function while tracing) is
Python's UnboundLocalError too, where it was NameError (fuzz seed 561 of
`partly_bound`)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import (MODES, assert_same_in_mode, assert_same_outcome, converted_module,
                           outcome)

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")

F = np.float64


def read_before_binding(x):
    if x > 5:
        print(y)  # noqa: F821 - read before it is bound, on purpose
    y = x
    return y


def read_in_a_loop_before_binding(x):
    t = 0.0
    for i in range(3):
        if x > i:
            t = t + w  # noqa: F821 - read before it is bound, on purpose
        w = x  # noqa: F841 - bound after the read, on purpose
    return t


def boom():
    raise KeyError("boom")


def raising_branch_then_a_read(xs, s):
    if s > 0:
        v = xs[0]
        boom()
    if s < -1:
        return v
    return s


def read_in_a_python_walked_loop(x, xs):
    u = xs[0]
    if len(xs) < 0:
        never = x * 0.5
    for _ in range(len(xs)):
        u = u + never * 0.5
        break
    return u


def read_in_a_rolled_range_loop(n, xs):
    if len(xs) < 0:
        never = 1.0
    u = 0.0
    for i in range(n):
        u = u + never + i
    return u


def read_in_a_while_loop_on_one_path(n, xs):
    if len(xs) < 0:
        never = 1.0
    u = 0.0
    i = 0
    while i < 2:
        i += 1
        if i > n:
            u = u + never
    return u


CASES = [
    (read_before_binding, [(F(1.0),), (F(9.0),), (F(0.5),)]),
    (read_in_a_loop_before_binding, [(F(1.0),), (F(-1.0),), (F(0.5),)]),
    (raising_branch_then_a_read, [(np.arange(3.0), F(1.0)), (np.arange(3.0), F(-3.0)),
                                  (np.arange(3.0), F(0.0))]),
    (read_in_a_python_walked_loop, [(F(1.0), np.arange(2.0)), (F(1.0), np.arange(0.0))]),
    (read_in_a_rolled_range_loop, [(np.int64(0), np.arange(1.0)),
                                   (np.int64(3), np.arange(1.0))]),
    (read_in_a_while_loop_on_one_path, [(np.int64(3), np.arange(1.0)),
                                        (np.int64(0), np.arange(1.0))]),
]


@pytest.fixture(scope="module")
def converted(tmp_path_factory):
    return converted_module(__file__, tmp_path_factory.mktemp("converted"),
                            "converted_unbound_reads")[0]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_same_as_python(fn, inputs, mode, converted):
    assert_same_in_mode(fn, inputs, mode, converted)


def test_a_nested_function_of_the_users_keeps_pythons_name_error():
    # a function of the user's own reading a free variable: NameError, as in Python
    def outer(x):
        def inner():
            return z * 2
        if x > 0:
            return inner()
        z = x
        return z

    for x in (F(1.0), F(-1.0)):
        got = outcome(ag.function(outer), (x,), exact_type=True)
        assert got == outcome(outer, (x,), exact_type=True)


def first_assigned_in_a_loop_read_on_another_path(n, x):
    w = 0
    u = 0.0
    while w < n:
        w += 1
        if x == -4:
            pb0 = x
        else:
            u = u + pb0 * 0.5
    return u


def test_a_loop_variable_read_before_any_path_binds_it_is_never_a_value():
    # (fuzz seeds 347 and 818 of partly_bound) the loop traces its body again once it
    # knows the variable's type, with zeros for it: a read replayed from the first trace
    # was lost and the graph returned a value where Python raises. The loop now carries
    # it as PartlyBound from that trace on: Python's error, on the path that reads it
    fn = first_assigned_in_a_loop_read_on_another_path
    run = ag.function(fn)
    for args in [(np.int64(2), F(1.0)), (np.int64(0), F(1.0)), (np.int64(3), F(-4.0))]:
        assert_same_outcome(outcome(run, args, exact_type=True),
                            outcome(fn, args, exact_type=True), args)


def read_in_a_later_iteration(x, n):
    t = 0.0
    i = 0
    while i < n:
        if i > 0:
            t = t + w  # noqa: F821 - bound by the iteration before, on purpose
        w = x[i]  # noqa: F841 - read by the next iteration
        i += 1
    return t


def read_in_a_later_iteration_and_after(x, n):
    t = 0.0
    for i in range(n):
        if i > 0:
            t = t + w * 2  # noqa: F821 - bound by the iteration before, on purpose
        w = x[i]  # noqa: F841 - read by the next iteration
    return t, w


def read_in_the_first_iteration_on_one_path(x, n):
    t = 0.0
    for i in range(n):
        if x[i] < 0:
            t = t + w  # noqa: F821 - bound by an iteration before, if any
        w = x[i]  # noqa: F841 - read by the next iteration
    return t


def read_then_assigned_on_the_same_path(x, n):
    # only the path that reads `w` assigns it, after the read: no iteration binds it
    # (fuzz seed 767 of partly_bound: the loop's Diagnostic, once it traced its body again)
    t = 0.0
    for i in range(n):
        if x[i] < 0:
            t = t + w  # noqa: F821 - never bound before, on purpose
            w = x[i]  # noqa: F841 - after the read, on purpose
        t = t + 1
    return t


X4 = np.array([1.0, 2.0, -3.0, 4.0])
LATER = [(X4, np.int64(k)) for k in (0, 1, 3, 4)] + [(-X4, np.int64(2))]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("fn", [read_in_a_later_iteration, read_in_a_later_iteration_and_after,
                                read_in_the_first_iteration_on_one_path,
                                read_then_assigned_on_the_same_path],
                         ids=lambda f: f.__name__)
def test_a_symbolic_loop_reads_what_an_earlier_iteration_bound(fn, mode, converted):
    # a variable first assigned in the loop, read before the body assigns it: Python
    # reads the earlier iteration's value, or raises where none bound it (the loop's
    # Diagnostic before: "first assigned inside this symbolic loop ... reads it before")
    assert_same_in_mode(fn, LATER, mode, converted)
