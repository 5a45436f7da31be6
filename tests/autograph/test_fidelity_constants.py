"""NumPy arrays the traced function reads as constants are read by value *at the moment
of each read*, and arrays it creates are arrays of the trace: changed in place between
reads (a counter array in a Python loop, a buffer refilled per step, a view of an array
written later), every read gives the value NumPy would see then; written with symbolic
values through any name, alias or view, every write lands. Compared eagerly, as a graph
and with jit_compile=True, on several calls.
"""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same

pytestmark = pytest.mark.filterwarnings("ignore::runtime.jit.JitFallbackWarning")


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


W = np.linspace(0.0, 1.0, 3)


def unchanged_array_read_twice(x):
    return x * W + W


def write_through_a_view_of_a_created_array(x):
    a = np.zeros((2, 3))
    r = a[0]
    r[:] = x
    return a


def write_through_an_alias(x):
    a = np.zeros(3)
    b = a
    a[0] = x[0]
    return b


def accumulate_in_place(x):
    acc = np.zeros(3)
    acc += x
    acc *= 2
    return acc


def counter_array_in_symbolic_loop(x):
    i = np.zeros([1], dtype="int32")
    limit = np.abs(x[1]) % 3 + 1  # 1 to 3 iterations, known when the graph runs
    while i < limit:              # a symbolic condition: a graph loop over i
        i += 1
        x = x + i
    return x


def written_in_a_branch_that_returns(x):
    y = np.zeros(3)
    if x[0] > 0:
        y[0] = x[0]
        return y
    y[2] = x[2]
    return y * 2


@pytest.mark.parametrize("fn", [counter_array_in_python_loop, buffer_refilled_per_step,
                                view_of_changed_array, unchanged_array_read_twice,
                                write_through_a_view_of_a_created_array, write_through_an_alias,
                                accumulate_in_place, counter_array_in_symbolic_loop,
                                written_in_a_branch_that_returns])
@pytest.mark.parametrize("jit", [False, True])
def test_each_read_sees_the_value_numpy_sees(fn, jit):
    f = ag.function(fn, jit_compile=jit)
    for k in range(3):
        x = np.arange(3.0) + k if fn is not view_of_changed_array else np.arange(4.0) - k
        x = -x if fn is written_in_a_branch_that_returns and k == 1 else x
        assert_same(f(x.copy()), fn(x.copy()))
    assert f.tracing_count == 1


def test_an_unchanged_array_is_one_constant_of_the_trace():
    cf = ag.function(unchanged_array_read_twice).get_concrete_function(np.ones(3))
    constants = [x for node in cf.graph.nodes for x in node.inputs if isinstance(x, np.ndarray)]
    assert len(constants) == 2 and constants[0] is constants[1]
