"""List and dict arguments changed in place by a Function change the caller's containers,
as the Python function does: on every call, not only while tracing, keeping the identity
of the caller's arrays and nested containers. Each case runs the original on one copy of
the arguments and the Function on another (twice: the trace, then the cached graph) and
compares the results and the arguments' state after the call."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def fill(t, n):
    for i in range(n):
        t[i] = i
    return t


def append_double(xs, x):
    xs.append(x * 2)
    return len(xs)


def set_keys(d, x):
    d["y"] = d["x"] + x
    d["n"] = d.get("n", 0) + 1
    return x


def bump_in_symbolic_loop(xs, n):
    i = np.int64(0)
    while i < n:
        xs[0] = xs[0] + 1.0
        i += 1
    return n


def pop_and_insert(xs):
    last = xs.pop()
    xs.insert(0, last * 3)
    return last


def alias_nested(t):
    t[0].append(1)
    t[1] = t[0]
    return 0


def swap(pair):
    pair[0], pair[1] = pair[1], pair[0]
    return pair[0] - pair[1]


def nested_dict(cfg, x):
    cfg["inner"]["scale"] = cfg["inner"]["scale"] * x
    return x


def clear(xs):
    xs.clear()
    return 0


CASES = {
    "fill": (fill, lambda: ([0] * 5, 5)),
    "append": (append_double, lambda: ([np.ones(2)], np.arange(2.0))),
    "dict": (set_keys, lambda: ({"x": np.float32(1)}, np.float32(2))),
    "symbolic_loop": (bump_in_symbolic_loop, lambda: ([np.float64(0), np.ones(2)], np.int64(3))),
    "pop_insert": (pop_and_insert, lambda: ([np.ones(2), np.arange(2.0)],)),
    "alias_nested": (alias_nested, lambda: ([[0], [5]],)),
    "swap": (swap, lambda: ([np.ones(3), np.arange(3.0)],)),
    "nested_dict": (nested_dict, lambda: ({"inner": {"scale": np.float64(2)}}, np.float64(3))),
    "clear": (clear, lambda: ([np.ones(1), 2],)),
}


def shape_of(obj, seen=None):
    """The value of a nested structure with its aliasing: a repeated container or array
    shows as a back-reference to its first position."""
    seen = {} if seen is None else seen
    if isinstance(obj, (list, dict, np.ndarray)):
        if id(obj) in seen:
            return ("same-as", seen[id(obj)])
        seen[id(obj)] = len(seen)
    if type(obj) is list:
        return ["list", *[shape_of(x, seen) for x in obj]]
    if type(obj) is dict:
        return ["dict", *[(k, shape_of(v, seen)) for k, v in obj.items()]]
    if isinstance(obj, (np.ndarray, np.generic)):
        return (np.asarray(obj).dtype.str, np.shape(obj), np.asarray(obj).tolist())
    return (type(obj).__name__, obj)


@pytest.mark.parametrize("name", list(CASES))
def test_argument_containers_change_as_in_python(name):
    fn, make = CASES[name]
    g = ag.function(fn)
    for _ in range(2):  # traced, then cached
        expected_args, actual_args = make(), make()
        expected = fn(*expected_args)
        actual = g(*actual_args)
        assert_same(actual, expected)
        assert shape_of(list(actual_args)) == shape_of(list(expected_args))
    assert g.tracing_count == 1


def test_the_callers_arrays_keep_their_identity():
    a, b = np.ones(3), np.arange(3.0)
    pair = [a, b]
    ag.function(swap)(pair)
    assert pair[0] is b and pair[1] is a


def test_a_container_the_function_does_not_change_is_left_alone():
    def total(xs):
        return xs[0] + xs[1]

    xs = [np.ones(2), np.ones(2)]
    first = xs[0]
    ag.function(total)(xs)
    assert xs[0] is first and len(xs) == 2
