"""Python lists, dicts and objects under symbolic control flow: a mutation is carried
(a fixed-structure container's items as branch outputs / loop variables) or refused with
a clear error at the user's line - never applied unconditionally or only once. Graph vs
the original Python on the same inputs (value, dtype, shape, or the exception)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

f32, i64 = np.float32, np.int64


class Acc:
    def __init__(self):
        self.total = f32(0)

    def add(self, v):
        self.total = self.total + v


def nested_dict_in_branch(x):
    d = {"a": {"b": f32(0)}}
    if x > 0:
        d["a"]["b"] = x * 2
    return d["a"]["b"]


def nested_list_in_branch(x):
    grid = [[f32(0), f32(0)], [f32(0), f32(0)]]
    if x > 0:
        grid[1][0] = x
    else:
        grid[0][1] = -x
    return grid[0][1], grid[1][0]


def list_item_in_while(n):
    y = [i64(0), i64(5)]
    i = 0
    while i < n:
        y[0] += 1
        i += 1
    return y[0], y[1]


def list_item_in_for(x, n):
    acc = [x * 0, x * 0 + 1]
    for _ in range(n):
        acc[0] = acc[0] + x
        acc[1] = acc[1] * 2
    return acc[0], acc[1]


def dict_item_in_for(x, n):
    stats = {"sum": f32(0), "max": f32(-np.inf)}
    for i in range(n):
        v = x[i]
        stats["sum"] += v
        stats["max"] = np.maximum(stats["max"], v)
    return stats["sum"], stats["max"]


def dp_table(n):
    dp = [i64(0)] * 3
    dp[1] = i64(1)
    k = i64(1)
    while k < n:
        dp[0], dp[1] = dp[1], dp[0] + dp[1]
        dp[2] += 1
        k += 1
    return dp[1], dp[2]


def closure_container_in_loop(x, n):
    acc = {"s": f32(0)}

    def add(v):
        acc["s"] = acc["s"] + v

    i = 0
    while i < n:
        add(x)
        i += 1
    return acc["s"]


def object_in_loop(x, n):
    acc = Acc()
    i = 0
    while i < n:
        acc.add(x)
        i += 1
    return acc.total


def appended_then_read(n):
    xs = []
    for i in range(n):
        xs.append(i * 2)
    return sum(xs), len(xs), xs[1], xs[-1]


def appended_in_while(x, n):
    out = []
    i = 0
    while i < n:
        out.append(x * 2 + x)
        i += 1
    return np.stack(out), len(out)


def append_then_pop(x, n):
    xs = [x, x + 1]
    for _ in range(n):
        xs.append(xs[0] * 2)
        xs[0] = xs.pop()  # the length stays: a fixed-length list, carried
    return xs[0], xs[1], len(xs)


CASES = [
    (append_then_pop, [(f32(1.5), i64(3)), (f32(1.5), i64(0))]),
    (nested_dict_in_branch, [(f32(1),), (f32(-1),)]),
    (nested_list_in_branch, [(f32(1),), (f32(-1),)]),
    (list_item_in_while, [(i64(3),), (i64(0),)]),
    (list_item_in_for, [(f32(1.5), i64(3)), (f32(1.5), i64(0))]),
    (dict_item_in_for, [(np.array([1, 5, 2], f32), i64(3)), (np.array([1, 5, 2], f32), i64(1))]),
    (dp_table, [(i64(10),), (i64(3),)]),
    (closure_container_in_loop, [(f32(2), i64(3)), (f32(2), i64(0))]),
    (object_in_loop, [(f32(2), i64(3)), (f32(2), i64(0))]),
    (appended_then_read, [(i64(3),), (i64(5),)]),
    (appended_in_while, [(f32(2), i64(3))]),
]


@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_graph_matches_python(fn, inputs):
    f = ag.function(fn)
    for args in inputs:
        # (values, dtypes and kinds: items of a list the graph builds read back as the
        # Python numbers appended, as from the Python list)
        assert_same(f(*args), fn(*args))


@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_converted_code_on_python_values_matches_python(fn, inputs):
    converted = ag.to_graph(fn)
    for args in inputs:
        plain = tuple(a.item() if isinstance(a, np.generic) and a.dtype.kind == "i" else a
                      for a in args)
        assert_same(converted(*plain), fn(*plain))


def list_argument_in_loop(y, n):
    i = 0
    while i < n:
        y[0] = y[0] + 1
        i += 1
    return i


def test_list_argument_is_updated_in_place():
    """The caller's list object is the one the loop updates (as in Python)."""
    y_py, y_ag = [i64(0), i64(7)], [i64(0), i64(7)]
    list_argument_in_loop(y_py, 3)
    ag.to_graph(list_argument_in_loop)(y_ag, 3)
    assert_same(y_ag, y_py)


def aliased_list_in_loop(n):
    y = [i64(0)]
    alias = y
    i = 0
    while i < n:
        y[0] += 2
        i += 1
    return alias[0]


def test_alias_of_a_loop_list_sees_the_update():
    assert_same(ag.function(aliased_list_in_loop)(i64(3)), aliased_list_in_loop(i64(3)))


# -- refused: the structure of a container changes under a symbolic condition --------------
def appends_in_branch(x):
    log = []

    def note(v):
        log.append(v)

    if x > 0:
        note(1)
    return len(log)


def new_key_in_loop(x, n):
    seen = {}

    def mark(k):
        seen[k] = True

    i = 0
    while i < n:
        mark("x")
        i += 1
    return x


def pop_in_loop(n):
    stack = [1, 2, 3, 4]
    i = 0
    while i < n:
        stack.pop()
        i += 1
    return i


@pytest.mark.parametrize("fn,args,line", [
    (appends_in_branch, (f32(1),), 6), (new_key_in_loop, (f32(1), i64(2)), 7),
    (pop_in_loop, (i64(2),), 4),
], ids=["append-in-branch", "new-key-in-loop", "pop-in-loop"])
def test_structural_change_is_refused_at_the_users_line(fn, args, line):
    with pytest.raises(ValueError) as info:
        ag.function(fn)(*args)
    msg = str(info.value)
    assert f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno + line}" in msg, msg
    assert "symbolic" in msg


def test_python_values_still_mutate_as_python():
    """With Python conditions the same functions run as Python (nothing refused)."""
    assert ag.to_graph(appends_in_branch)(1) == appends_in_branch(1)
    assert ag.to_graph(pop_in_loop)(2) == pop_in_loop(2)
