"""Python semantics the three-way corpus cannot show: errors raised the same way, aliasing,
and how often Python side effects run while tracing."""
from __future__ import annotations

import collections
import inspect
import os

import numpy as np
import pytest

import autograph as ag
from autograph.errors import ConversionError

THIS = os.path.basename(__file__)


def where(fn, text: str) -> str:
    lines, first = inspect.getsourcelines(fn)
    return f"{THIS}:{first + next(k for k, line in enumerate(lines) if text in line)}"


# -- and / or give an operand -----------------------------------------------------------------
def int_or_bool(n, x):
    return n or x > 0  # the or


def test_or_of_mismatched_dtypes_is_the_runtimes_error_at_the_users_line():
    assert ag.to_graph(int_or_bool)(0, 1.0) is True and ag.to_graph(int_or_bool)(2, 1.0) == 2
    with pytest.raises(TypeError) as info:
        ag.function(int_or_bool)(np.int64(0), np.float64(1.0))
    msg = str(info.value)
    assert "the value of this `or`" in msg and "int64" in msg and "bool" in msg
    assert where(int_or_bool, "# the or") in msg


def and_with_python_list(x, items):
    if x > 0 and items:
        return x
    return -x


def test_a_later_operand_that_is_no_graph_value_counts_by_its_truthiness():
    f = ag.function(and_with_python_list)
    assert f(np.float32(2.0), [1]) == 2.0 and f(np.float32(2.0), []) == -2.0


# -- augmented subscript assignment ----------------------------------------------------------
def add_half_to_slice(x):
    x[0:2] += 1.5  # the update
    return x


def test_same_kind_casting_error_in_every_mode():
    for fn in (add_half_to_slice, ag.to_graph(add_half_to_slice)):
        with pytest.raises(TypeError, match="Cannot cast ufunc 'add' output"):
            fn(np.arange(3))
    with pytest.raises(TypeError) as info:
        ag.function(add_half_to_slice)(np.arange(3))
    msg = str(info.value)
    assert "Cannot cast ufunc 'add' output from dtype('float64') to dtype('int64')" in msg
    assert where(add_half_to_slice, "# the update") in msg


def extend_first(xs):
    first = xs[0]
    xs[0] += [9]
    return first


def test_augmented_assignment_on_python_containers_is_in_place():
    assert ag.to_graph(extend_first)([[1], [2]]) == [1, 9]  # list.__iadd__, as in Python


def test_the_index_is_evaluated_once_in_the_converted_code():
    def f(x, idx):
        x[idx()] += 1
        return x
    assert "ag__.setitem(x, idx(), 1, '+=')" in ag.to_code(f, recursive=False)


# -- match ------------------------------------------------------------------------------------
def match_on_symbolic(x):
    match x:  # the match
        case 0:
            return 1.0
        case _:
            return x


def match_with_symbolic_guard(x, mode):
    match mode:
        case "pos" if x > 0:  # the guard
            return x
        case _:
            return -x


def test_symbolic_match_subject_or_guard_is_a_conversion_error_at_its_line():
    assert ag.to_graph(match_on_symbolic)(0) == 1.0
    with pytest.raises(ConversionError) as info:
        ag.function(match_on_symbolic)(np.float64(0.0))
    assert where(match_on_symbolic, "# the match") in str(info.value)
    assert "if/elif" in str(info.value)
    assert ag.to_graph(match_with_symbolic_guard)(2.0, "pos") == 2.0
    with pytest.raises(ConversionError) as info:
        ag.function(match_with_symbolic_guard)(np.float64(2.0), "pos")
    assert where(match_with_symbolic_guard, "# the guard") in str(info.value)


# -- Python side effects while tracing --------------------------------------------------------
RUNS: collections.Counter = collections.Counter()


def _count(tag):
    RUNS[tag] += 1


def branch_and_loops(x, xs, n):
    if x > 0:
        _count("true")
        y = x
    else:
        _count("false")
        y = -x
    s = x * 0
    while s < x:             # Tensor loop variables only
        _count("tensor loop")
        s = s + 1
    total = 0.0              # a Python number: its dtype is discovered by tracing once
    for _ in range(n):
        _count("number loop")
        total = total + x
    for v in xs:             # returns from inside: the return value's type is discovered
        _count("returning loop")
        if v < 0:
            return v + y + s + total
    return y + s + total


def test_how_often_python_side_effects_run_during_one_trace():
    RUNS.clear()
    f = ag.function(branch_and_loops)
    f(np.float32(1.0), np.array([1.0, -1.0], np.float32), np.int64(3))
    assert dict(RUNS) == {"true": 1, "false": 1, "tensor loop": 1, "number loop": 2,
                          "returning loop": 2}


def python_number_loop_var(x, n):
    s = 0.0
    for _ in range(n):
        s = s + x
    return s


def test_python_number_loop_variables_take_the_bodys_dtype():
    assert ag.function(python_number_loop_var)(np.float32(1.5), np.int64(2)).dtype == np.float32


# -- lists --------------------------------------------------------------------------------------
def pops_graph_list(x, n):
    xs = [x]
    for _ in range(n):
        xs.append(x)
        xs.append(x)  # the list grows: a graph list (a fixed-length one is carried)
        xs.pop()  # the pop
    return xs


def test_pop_on_a_graph_list_names_the_users_line():
    with pytest.raises(ValueError) as info:
        ag.function(pops_graph_list)(np.float32(1.0), np.int64(2))
    assert where(pops_graph_list, "# the pop") in str(info.value)


class _Plain:
    def add(self, x):  # a set/ndarray method name: called as is, not converted
        if x > 0:
            return x * 2
        return -x


class _Decorated(_Plain):
    add = ag.function(_Plain.add)  # the same method, decorated: converted and traced inline


_PLAIN, _DECORATED = _Plain(), _Decorated()


def _uses_plain(x):
    return _PLAIN.add(x)


def _uses_decorated(x):
    return _DECORATED.add(x)


def test_method_named_like_a_builtin_method_converts_when_decorated():
    f = ag.function(_uses_decorated)
    assert f(np.float64(3.0)) == 6.0 and f(np.float64(-3.0)) == 3.0
    assert f.tracing_count == 1


def test_undecorated_method_with_a_builtin_name_says_what_to_do():
    with pytest.raises(ag.GraphModeError, match=r"method name .*@ag.function"):
        ag.function(_uses_plain)(np.float64(3.0))
