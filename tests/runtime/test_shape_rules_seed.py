"""End to end: shape rules never run kernels, so value errors of unused ops never
raise (non-strict execution, the seed's example), unknown dims flow through, and static
errors raise while tracing with NumPy's type at the user's line. Each case is compared
with eager NumPy on the same inputs."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag


def unused_take(x):
    np.take(x, [1])  # unused: fails eagerly when len(x) == 1
    return x


def test_seed_non_strict_example():
    x = np.array([0.0])
    with pytest.raises(IndexError):
        unused_take(x)  # eager NumPy raises
    f = ag.function(unused_take)
    np.testing.assert_array_equal(f(x), x)  # the graph never runs the unused take
    with pytest.raises(IndexError):  # used, it raises when the graph runs, like NumPy
        ag.function(lambda x: np.take(x, [1]))(x)


def unused_inverse(a):
    np.linalg.inv(a)  # singular: a value error, only if it runs
    return a.sum()


def unused_index(x):
    x[5]  # out of bounds for this x
    y = x[np.array([7])]  # noqa: F841 - unused on purpose
    return x * 2


@pytest.mark.parametrize("fn,used,arg", [
    (unused_inverse, lambda a: a.sum(), np.zeros((2, 2))),
    (unused_index, lambda x: x * 2, np.ones(3, np.float32)),
])
def test_unused_value_errors_never_raise(fn, used, arg):
    with pytest.raises((np.linalg.LinAlgError, IndexError)):
        fn(arg)  # eagerly, the unused op raises
    got, expected = ag.function(fn)(arg), used(arg)  # the graph runs only what is used
    np.testing.assert_array_equal(got, expected)
    assert np.asarray(got).dtype == np.asarray(expected).dtype


def reshape_rows(x):
    return x.reshape(2, -1)


@pytest.mark.parametrize("n", [2, 4, 10, 0])
def test_reshape_minus_one_on_unknown_dims(n):
    f = ag.function(reshape_rows, input_signature=[ag.TensorSpec((None,), np.float32)])
    cf = f.get_concrete_function()
    assert cf.graph.outputs[0].shape == (2, None)
    x = np.arange(n, dtype=np.float32)
    np.testing.assert_array_equal(f(x), reshape_rows(x))
    assert f(x).dtype == reshape_rows(x).dtype


def test_reshape_of_odd_size_raises_when_it_runs():
    f = ag.function(reshape_rows, input_signature=[ag.TensorSpec((None,), np.float32)])
    x = np.arange(3, dtype=np.float32)
    with pytest.raises(ValueError):
        reshape_rows(x)
    with pytest.raises(ValueError):
        f(x)


def mismatch(x, y):
    return x + y  # the user's line for the broadcast error


def bad_axis(x):
    return np.sum(x, axis=3)


def no_loop(x):
    return np.bitwise_and(x, 1.5)


@pytest.mark.parametrize("fn,args,kind,line", [
    (mismatch, (np.ones(3), np.ones(4)), ValueError, mismatch.__code__.co_firstlineno + 1),
    (bad_axis, (np.ones((2, 2)),), np.exceptions.AxisError, bad_axis.__code__.co_firstlineno + 1),
    (no_loop, (np.ones(3, np.int32),), TypeError, no_loop.__code__.co_firstlineno + 1),
])
def test_static_errors_at_the_users_line(fn, args, kind, line):
    with pytest.raises(kind):
        fn(*args)
    with pytest.raises(kind) as info:
        ag.function(fn).get_concrete_function(*args)
    assert f"{__file__}:{line}" in str(info.value)


@pytest.mark.filterwarnings("ignore:Mean of empty slice", "ignore:invalid value encountered")
def test_unknown_dims_flow_through_a_program():  # (the mean of 0 rows warns, eagerly too)
    def prog(x, w):
        h = np.maximum(x @ w, 0.0)
        z = np.concatenate([h, h[:, :1]], axis=1)
        m = z[z[:, 0] > 0.5]
        return z.mean(axis=0), m.sum(), z.reshape(-1, 2)[:, ::-1]

    f = ag.function(prog, input_signature=[ag.TensorSpec((None, 3), np.float32),
                                           ag.TensorSpec((3, 4), np.float32)])
    outs = f.get_concrete_function().graph.outputs
    assert [o.shape for o in outs] == [(5,), (), (None, 2)]
    w = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)
    for n in (0, 2, 4):
        x = np.linspace(-2, 2, 3 * n, dtype=np.float32).reshape(n, 3)
        for got, exp in zip(f(x, w), prog(x, w), strict=True):
            np.testing.assert_allclose(got, exp, rtol=1e-6)
            assert np.asarray(got).dtype == np.asarray(exp).dtype
