"""Aliasing and views on the symbolic path: graph vs eager NumPy, including the state of
the argument arrays after the call (runtime/state/views.py, runtime/state/writeback.py)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def same_as_eager(fn, *args, calls=2):
    """Results and the arguments' state after each call equal eager NumPy's."""
    f = ag.function(fn)
    for _ in range(calls):  # the first call traces, the second runs the cached graph
        eager_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        graph_args = [a.copy() if isinstance(a, np.ndarray) else a for a in args]
        expected = fn(*eager_args)
        got = f(*graph_args)
        assert_same(got, expected)
        for g, e in zip(graph_args, eager_args):
            assert_same(g, e)
    return f


def refused(fn, *args, match):
    fn(*[a.copy() if isinstance(a, np.ndarray) else a for a in args])  # eager runs fine
    with pytest.raises(ValueError, match=match) as info:
        ag.function(fn)(*args)
    assert __file__.rsplit("/", 1)[-1] in str(info.value)  # at the user's line


def vec(n=4, dtype=np.float64):
    return np.arange(1, n + 1).astype(dtype)


def mat(r=3, c=4, dtype=np.float64):
    return np.arange(r * c).reshape(r, c).astype(dtype)


# -- the listed cases ---------------------------------------------------------------------
def test_alias_by_name_sees_setitem():
    def f(x):
        y = x
        y[0] = 7
        return x
    same_as_eager(f, vec())


def test_augmented_assignment_is_in_place_through_alias():
    def f(a):
        b = a
        b *= 2
        return a
    same_as_eager(f, vec())
    same_as_eager(f, vec(dtype=np.int32))


def test_rebinding_is_not_in_place():
    def f(a):
        b = a
        b = b * 2
        return a, b
    same_as_eager(f, vec())


def test_write_through_row_view():
    def f(a, x):
        r = a[0]
        r[:] = x
        return a
    same_as_eager(f, mat(), vec())


def test_write_through_transpose():
    def f(x):
        x.T[0] = 5.0
        t = x.T
        t[1, 1:] = -1.0
        return x
    same_as_eager(f, mat())


def test_slice_view_augmented():
    def f(x):
        v = x[1:]
        v += 1
        return x, v
    same_as_eager(f, vec())


def test_base_write_is_seen_by_earlier_view():
    def f(x):
        v = x[1:]
        w = x[:, 2]
        x[1, 2] = 100.0
        x += 1
        return v, w
    same_as_eager(f, mat())


def test_nested_views_write_back_to_root():
    def f(x):
        v = x[1:]
        w = v[:, ::2]
        w[0] = 9.0
        return x.sum(), v
    same_as_eager(f, mat())


def test_argument_written_in_place():
    def f(x):
        x[0] = 7
        return x.sum()
    same_as_eager(f, vec())


def test_argument_written_in_a_nested_structure():
    def f(xs, i):
        xs[1][i] = 0.5
        return xs[0] * 2
    same_as_eager(f, [vec(), vec()], 2)


def test_ravel_write_is_refused():
    def f(x):
        x.ravel()[0] = 5
        return x
    refused(f, mat(), match="memory layout")


def test_reshape_read_after_base_write_is_refused():
    def f(x):
        flat = x.reshape(-1)
        x[0, 0] = 3.0
        return flat.sum()
    refused(f, mat(), match="memory layout")


def test_flatten_is_a_copy():
    def f(x):
        flat = x.flatten()
        flat[0] = 5
        return x, flat
    same_as_eager(f, mat())


def test_augmented_assignment_keeps_dtype_or_raises_like_numpy():
    def f(a):
        a += 1.5
        return a
    same_as_eager(f, vec(dtype=np.float32))
    with pytest.raises(TypeError, match="same_kind"):
        f(vec(dtype=np.int64))
    with pytest.raises(TypeError, match="same_kind"):
        ag.function(f)(vec(dtype=np.int64))


def test_augmented_assignment_cannot_broadcast_the_target():
    def f(a, b):
        a += b
        return a
    with pytest.raises(ValueError):
        f(vec(3), mat(2, 3))
    with pytest.raises(ValueError, match="broadcast"):
        ag.function(f)(vec(3), mat(2, 3))


def test_scalar_augmented_assignment_rebinds():
    def f(x):
        s = x.sum()
        t = s
        s += 1.0
        return s, t
    same_as_eager(f, vec(dtype=np.float32))


# -- across symbolic control flow ---------------------------------------------------------
def test_symbolic_loop_writes_argument():
    def f(x, n):
        for i in range(n):
            x[i] = i * 2.0
        return x.sum()
    same_as_eager(f, vec(5), np.int64(3))


def test_symbolic_loop_writes_through_view_defined_before():
    def f(x, n):
        r = x[1]
        i = 0
        while i < n:
            r[i] = -1.0
            i += 1
        return x
    same_as_eager(f, mat(), np.int64(2))


def test_symbolic_if_writes_argument_and_alias():
    def f(x, c):
        y = x
        if c > 0:
            x[0] = 10.0
        else:
            x[1] = 20.0
        return y, x.sum()
    same_as_eager(f, vec(), np.float64(1.0))
    same_as_eager(f, vec(), np.float64(-1.0))

    def dead_after(x, c):  # x is not read after the `if`: the branches carry it anyway
        y = x
        if c > 0:
            x[0] = 10.0
        else:
            x[1] = 20.0
        return y
    same_as_eager(dead_after, vec(), np.float64(1.0))
    same_as_eager(dead_after, vec(), np.float64(-1.0))


def test_symbolic_if_written_in_one_branch_only():
    def f(x, c):
        y = x
        if c > 0:
            x[0] = 10.0
        return y + 0, x
    same_as_eager(f, vec(), np.float64(1.0))
    same_as_eager(f, vec(), np.float64(-1.0))


def test_alias_read_inside_loop_that_writes_is_refused():
    def f(x, n):
        y = x
        s = 0.0
        for i in range(n):
            x[i] = 1.0
            s += y.sum()
        return s
    refused(f, vec(), np.int64(3), match="alias or view")


def test_write_into_outer_array_through_view_inside_loop_is_refused():
    def f(a, n):
        for i in range(n):
            r = a[i]
            r[:] = 0.0
        return a
    refused(f, mat(), np.int64(2), match="outside the symbolic")


def test_one_branch_replaces_the_other_writes_is_refused_when_read():
    def f(x, c):
        y = x
        if c > 0:
            x[0] = 10.0
        else:
            x = np.zeros(4)
        return y + x
    refused(f, vec(), np.float64(1.0), match="one branch")


# -- the common fill patterns keep working ------------------------------------------------
def test_fill_patterns():
    def fill(x, n):
        out = np.zeros(4)
        for i in range(n):
            out[i] = x[i] * 2
        y = x.copy()
        y[0] = 1.0
        m = np.zeros((2, 4))
        m[1, :] = y
        return out, y, m
    same_as_eager(fill, vec(), np.int64(3))


def test_arguments_sharing_memory_with_a_written_one_are_refused():
    def f(x, y):
        x[0] = 7.0
        return y.sum()
    a = vec()
    f2 = ag.function(f)
    f2(vec(), vec())
    with pytest.raises(ValueError, match="shares memory"):
        f2(a, a[::-1])  # the same array passed twice is one input (test_fidelity_objects)


def test_python_value_path_writes_in_place():
    def f(x):
        y = x
        y[0] = 7
        r = x[1:]
        r += 1
        return x
    converted = ag.to_graph(f)
    a, b = vec(), vec()
    assert_same(converted(a), f(b))
    assert_same(a, b)
