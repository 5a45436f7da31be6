"""A name the function declares `global` / `nonlocal` and first creates inside a branch or
loop body: converted code means what the Python means - the name is created only on the
paths that assign it, and stays unbound (NameError on reading it) on the others. Compared
with the original on every path: the result, the exception, and the global's / enclosing
variable's state after the call."""
from __future__ import annotations


import numpy as np
import pytest

import autograph as ag

_MISSING = object()


def set_in_if(c):
    global G
    if c:
        G = 1
    return 0


def set_in_if_else(c):
    global G
    out = 0
    if c:
        G = 1
    else:
        out = 2
    return out


def set_in_else_and_read(c):
    global G
    if c:
        pass
    else:
        G = 2
    return G


def update_in_if(c):
    global G
    if c:
        G += 1  # NameError when G is unbound and c holds, as in Python
    return 0


def set_in_while(n):
    global G
    while n > 0:
        G = n
        n -= 1
    return n


def set_in_for(n):
    global G
    for i in range(n):
        G = i * 10
    return n


def set_in_for_with_break(n):
    global G
    for i in range(n):
        if i == 2:
            break
        G = i
    return n


def set_in_some_iterations(n):
    global G
    i = 0
    while i < n:
        if i % 2:
            G = i
        i += 1
    for j in range(n):
        if j == 3:
            G = j * 100
    return i


def returns_in_branch(c):
    global G
    if c:
        G = 5
        return 1
    return 0


SCENARIOS = [
    (set_in_if, [True, False]),
    (set_in_if_else, [True, False]),
    (set_in_else_and_read, [True, False]),
    (update_in_if, [True, False]),
    (set_in_while, [0, 3]),
    (set_in_for, [0, 4]),
    (set_in_for_with_break, [0, 1, 5]),
    (set_in_some_iterations, [0, 1, 2, 5]),
    (returns_in_branch, [True, False]),
]


def _run(fn, arg, initial):
    """(result or exception, G afterwards) starting from G = initial (or unbound)."""
    g = fn.__globals__
    g.pop("G", None)
    if initial is not _MISSING:
        g["G"] = initial
    try:
        out = ("ok", fn(arg))
    except Exception as e:  # noqa: BLE001 - compared with the original's
        out = (type(e).__name__, str(e))
    after = g.pop("G", _MISSING)
    return out, ("unbound" if after is _MISSING else after)


@pytest.mark.parametrize("fn, args", SCENARIOS, ids=[f.__name__ for f, _ in SCENARIOS])
@pytest.mark.parametrize("initial", [_MISSING, 7], ids=["unbound", "bound"])
def test_global_created_in_a_block_matches_python(fn, args, initial):
    converted = ag.to_graph(fn)
    for arg in args:
        assert _run(converted, arg, initial) == _run(fn, arg, initial), (fn.__name__, arg)


def nonlocal_set_in_branches(c, n):
    def run():
        nonlocal x
        if c:
            x = 1
        for i in range(n):
            x = i
        return 0
    try:
        run()
        x = x  # noqa: F821 - unbound on the paths that did not assign it
    except NameError as e:
        return ("NameError", str(e))
    return x

    x = None  # makes x a local of the enclosing function (never reached)


@pytest.mark.parametrize("c, n", [(True, 0), (False, 0), (False, 2), (True, 3)])
def test_nonlocal_created_in_a_block_matches_python(c, n):
    assert ag.to_graph(nonlocal_set_in_branches)(c, n) == nonlocal_set_in_branches(c, n)


# -- symbolic conditions: a global the branch updates holds what Python leaves --------------
COUNT = 0


def bump_when_positive(x):
    global COUNT
    COUNT = 0
    if x > 0:
        COUNT += 1
    return x * COUNT


def test_global_under_symbolic_condition_holds_what_python_leaves():
    # the `if` selects the global's value at run time; every call writes it back, as a
    # Python int (it is one in Python)
    global COUNT
    f = ag.function(bump_when_positive)
    for x in [np.float64(2.0), np.float64(-2.0), np.float64(3.0)]:
        expected = bump_when_positive(x)
        expected_count, COUNT = COUNT, 7
        got = f(x)
        assert got == expected and COUNT == expected_count and type(COUNT) is int


def create_when_positive(x):
    global FRESH
    if x > 0:
        FRESH = x
    return x


def test_global_created_under_symbolic_condition_is_a_clear_error():
    globals().pop("FRESH", None)
    with pytest.raises(Exception, match="FRESH") as info:
        ag.function(create_when_positive)(np.float64(2.0))
    assert "test_fidelity_declared_state.py" in str(info.value)
    assert "FRESH" not in globals() or not isinstance(globals()["FRESH"], np.ndarray)
