"""NumPy arrays the traced function reads as constants are read by value *at the moment
of each read*: an array it creates and then changes in place with Python values between
reads (a counter array in a Python loop, a buffer refilled per step) gives every read the
value NumPy would see then. Compared eagerly, as a graph and with jit_compile=True, on
several calls.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def counter_array_in_python_loop(x):
    i = np.zeros([1], dtype="int32")
    while i < 3:                  # a concrete condition: a Python loop, unrolled
        i += 1                    # changes the array in place between reads
        x = x + i
    return x


def buffer_refilled_per_step(x):
    buf = np.empty(2)
    out = x * 0.0
    for k in range(3):
        buf[0] = k                # NumPy writes Python values into its own array
        buf[1] = 2 * k
        out = out + buf.sum() * x
    return out


def view_of_changed_array(x):
    base = np.arange(4.0)
    head = base[:2]
    y = x[:2] + head              # reads [0, 1]
    base[:] = 10.0                # the view now holds [10, 10]
    return y + head


def unchanged_array_read_twice(x):
    w = np.linspace(0.0, 1.0, 3)
    return x * w + w


@pytest.mark.parametrize("fn", [counter_array_in_python_loop, buffer_refilled_per_step,
                                view_of_changed_array, unchanged_array_read_twice])
@pytest.mark.parametrize("jit", [False, True])
def test_each_read_sees_the_value_numpy_sees(fn, jit):
    f = ag.function(fn, jit_compile=jit)
    for k in range(3):
        x = np.arange(3.0) + k if fn is not view_of_changed_array else np.arange(4.0) - k
        assert_same(f(x.copy()), fn(x.copy()))
    assert f.tracing_count == 1


def test_an_unchanged_array_is_one_constant_of_the_trace():
    cf = ag.function(unchanged_array_read_twice).get_concrete_function(np.ones(3))
    constants = [x for node in cf.graph.nodes for x in node.inputs if isinstance(x, np.ndarray)]
    assert len(constants) == 2 and constants[0] is constants[1]
