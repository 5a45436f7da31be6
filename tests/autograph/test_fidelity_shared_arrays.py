"""Graph values written into NumPy arrays the graph did not make (`autograph/operators/
sole_holder.py`): exact when the written name alone holds the array (or the array is
Python state, which then becomes a graph input), otherwise a clear `StateArrayWrite` at
the user's line - never a write that only one name sees. Each case runs eagerly, through
`ag.function` and with `jit_compile=True`, twice, and compares results and the objects'
state after each call."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.core.errors import StateArrayWrite
from runtime.jit import JitFallbackWarning

CONST = np.array([1.0, 2.0, 3.0])
GRID = np.arange(6.0).reshape(2, 3)


class Model:
    def __init__(self):
        self.w = np.zeros(3)
        self.d = {"k": np.zeros(3)}

    # exact: written through the state itself, or a local alias of it
    def attribute_item(self, x):
        self.w[0] = x[0]
        return self.w.sum()

    def alias_of_attribute(self, x):
        w = self.w
        w[1] = x[1]
        return self.w * 2

    def alias_of_dict_item(self, x):
        v = self.d["k"]
        v[:] = x
        return self.d["k"] + 1

    def in_symbolic_loop(self, x):
        i = 0
        while x[0] > i:
            self.w[0] += 1.0
            i += 1
        return self.w.sum()

    def alias_in_branch_in_loop(self, x):
        w = self.w
        for i in range(3):
            if x[i] > 0:
                w[i] += x[i]
        return w

    # refused: the array NumPy made of a constant is also held by a list / alias
    def listed_copy(self, x):
        a = self.w + 0
        b = [a]
        a[0] = x[0]
        return b[0]

    def aliased_in_branch(self, x):
        a = self.w * 1
        b = a
        if x[0] > 0:
            a[0] = 5.0
        return b


def copy_then_view(x):
    a = GRID.copy()
    r = a[0]
    r[:] = x
    return a


def astype_then_write(x):
    a = GRID.astype(np.float64)
    a[0] = x
    return a


def made_by_operator_alone(x):
    a = CONST * 1.0
    a[0] = x[0]
    return a


def made_by_operator_in_python_loop(x):
    a = CONST * 1.0
    for i in range(3):
        if x[i] > 0:
            a[i] = x[i]
    return a


def made_by_operator_in_nested_ifs(x):
    a = CONST * 1.0
    if x[0] > 0:
        if x[1] > 0:
            a[1] = 7.0
        a[0] = x[0]
    return a


def made_by_operator_in_symbolic_loop(x):
    a = CONST * 1.0
    while x[0] > 0:
        a[0] += 1.0
        x = x - 1
    return a


def nested_subscript(x):
    a = GRID + 0
    a[0][1] = x[0]
    return a


def read_then_written(x):
    a = CONST * 1.0
    y = x + a + a[1:].sum()  # the trace's snapshots of `a` and `a[1:]` are no aliases
    a[0] = x[0]
    return y, a


def view_of_operator_result(x):
    a = GRID + 0
    b = a.T
    b[0, 0] = x[0]
    return a


def alias_written_in_symbolic_loop(x):
    a = CONST * 1.0
    b = a
    while x[0] > 0:
        a[0] += 1.0
        x = x - 1
    return b


def listed_written_in_python_loop(x):
    a = CONST * 1.0
    b = [a]
    for i in range(3):
        a[i] = x[i] * 2
    return b[0]


def alias_written_in_nested_ifs(x):
    a = CONST * 1.0
    b = a
    if x[0] > 0:
        if x[1] > 0:
            a[1] = 7.0
    return b


EXACT = [Model.attribute_item, Model.alias_of_attribute, Model.alias_of_dict_item,
         Model.in_symbolic_loop, Model.alias_in_branch_in_loop, copy_then_view,
         astype_then_write, made_by_operator_alone, made_by_operator_in_python_loop,
         made_by_operator_in_nested_ifs, made_by_operator_in_symbolic_loop, nested_subscript,
         read_then_written]
REFUSED = [Model.listed_copy, Model.aliased_in_branch, view_of_operator_result,
           alias_written_in_symbolic_loop, listed_written_in_python_loop,
           alias_written_in_nested_ifs]
INPUTS = [np.array([2.0, 1.0, -1.0]), np.array([-1.0, 1.0, 1.0])]


def _calls(fn, wrap):
    """Results and the Model's state after two calls per input, each on a fresh object."""
    out = []
    for x in INPUTS:
        model = Model()
        f = wrap(fn.__get__(model) if fn.__qualname__.startswith("Model.") else fn)
        for _ in range(2):
            out.append((np.asarray(f(x.copy())).tolist(), model.w.tolist(),
                        model.d["k"].tolist()))
    return out


@pytest.mark.parametrize("jit", [False, True])
@pytest.mark.parametrize("fn", EXACT, ids=lambda f: f.__name__)
def test_write_lands_as_numpy_lands_it(fn, jit):
    expected = _calls(fn, lambda f: f)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", JitFallbackWarning)
        got = _calls(fn, lambda f: ag.function(f, jit_compile=jit))
    assert got == expected
    assert GRID.tolist() == np.arange(6.0).reshape(2, 3).tolist()  # constants unchanged
    assert CONST.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("fn", REFUSED, ids=lambda f: f.__name__)
def test_write_one_name_would_miss_is_refused_at_the_users_line(fn):
    _calls(fn, lambda f: f)  # runs eagerly
    with pytest.raises(StateArrayWrite) as info:
        _calls(fn, ag.function)
    message = str(info.value)
    assert "also holds" in message and "np.array(...)" in message
    assert __file__ in message  # the user's line (or the loop's), not the library's


# -- aliases whose array depends on the path a symbolic `if` / loop took ------------------
def alias_taken_in_one_branch(x):
    a = np.zeros(3)
    al = np.ones(3)
    if x[0] > 0:
        al = a
    al[1] += x[1]
    return a, al


def alias_taken_in_a_loop(x):
    a = np.zeros(3)
    u = 0.0
    while u < x[0]:
        u = u + 1.0
        al = a
    al[1] += x[1]
    return a


def rebound_on_one_path_then_written(x):
    a = np.zeros(3)
    b = a
    if x[0] > 0:
        a = a + x
    a[1] = 5.0
    return b


def rebound_in_a_loop_then_written(x):
    a = np.zeros(3)
    b = a
    i = 0
    while i < x[0]:
        a = a + x
        i += 1
    a[0] = 7.0
    return b


class Cache:
    def __init__(self):
        self.m = np.zeros(3)

    def state_alias_in_branch(self, x):
        al = self.m * 0
        if x[0] > 0:
            al = self.m
        al[1] += x[1]
        return x

    def state_kept_on_a_path(self, x):
        acc = self.m
        if x[0] > 0:
            acc = acc + x
        acc[1] = 5.0
        return acc


PATH_DEPENDENT = [alias_taken_in_one_branch, alias_taken_in_a_loop,
                  rebound_on_one_path_then_written, rebound_in_a_loop_then_written,
                  Cache.state_alias_in_branch, Cache.state_kept_on_a_path]


def both_branches_alias_the_same_array(x):
    a = np.zeros(3)
    al = np.ones(3)
    if x[0] > 0:
        al = a
    else:
        al = a
    al[1] += x[1]
    return a


def accumulator_rebound_on_one_path_then_written(x):
    acc = np.zeros(3)
    if x[0] > 0:
        acc = acc + x
    acc[1] = 5.0
    return acc


@pytest.mark.parametrize("fn", PATH_DEPENDENT, ids=lambda f: f.__name__)
def test_path_dependent_alias_is_a_clear_error(fn):
    """Which array the write lands in is known at run time only: refused on every input
    (also one whose path would not alias), never a write that misses a holder."""
    for x in INPUTS:  # one input takes the aliasing path, the other does not
        obj = Cache()
        graph = ag.function(fn.__get__(obj) if fn.__qualname__.startswith("Cache.") else fn)
        with pytest.raises(ValueError, match="path|paths only") as info:
            graph(x.copy())
        assert __file__ in str(info.value)
        assert obj.m.tolist() == [0.0, 0.0, 0.0]  # nothing written on the refused call


@pytest.mark.parametrize("fn", [both_branches_alias_the_same_array,
                                accumulator_rebound_on_one_path_then_written],
                         ids=lambda f: f.__name__)
def test_alias_on_every_path_and_unaliased_rebinding_are_exact(fn):
    for x in INPUTS:
        assert np.asarray(ag.function(fn)(x.copy())).tolist() == \
            np.asarray(fn(x.copy())).tolist()


class Clipped:
    def __init__(self):
        self.g = np.ones(3)

    def step(self, d, c):
        if c > 0:
            self.g = self.g * 0.5  # the attribute itself rebound on one path
        self.g += d
        return self.g.sum()


def argument_rebound_on_one_path(x, c):
    y = x
    if c > 0:
        y = y + 1
    y[0] = 5.0  # NumPy writes the caller's `x` on the path that kept it
    return y


@pytest.mark.parametrize("c", [1.0, -1.0])
def test_state_rebound_in_its_place_on_one_path_is_exact(c):
    results = []
    for wrap in (lambda f: f, ag.function):
        obj = Clipped()
        step = wrap(obj.step)
        results.append(([float(step(np.ones(3), np.float64(c))) for _ in range(3)],
                        obj.g.tolist()))
    assert results[0] == results[1]


def test_an_argument_kept_on_one_path_then_written_is_refused():
    for c in (1.0, -1.0):
        x = np.zeros(3)
        with pytest.raises(ValueError, match="depends on the path"):
            ag.function(argument_rebound_on_one_path)(x, np.float64(c))
        assert x.tolist() == [0.0, 0.0, 0.0]
