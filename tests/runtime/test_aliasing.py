"""What a call returns is never shared with the caller's inputs, a Variable or a later call."""
import numpy as np
import pytest

import autograph as ag
import runtime


def branch_constants(p):
    return runtime.cond(p > 0, lambda: np.ones(3), lambda: np.zeros(3))


@pytest.mark.parametrize("optimize", [True, False])
def test_constant_from_a_branch_is_fresh_each_call(optimize):
    f = ag.function(branch_constants, autograph=False, optimize=optimize)
    r = f(np.float64(1))
    r += 5
    np.testing.assert_array_equal(f(np.float64(1)), np.ones(3))


@pytest.mark.parametrize("optimize", [True, False])
def test_constant_through_a_loop_that_does_not_run_is_fresh(optimize):
    def fn(n):
        return runtime.while_loop(lambda i, v: i < n, lambda i, v: (i + 1, v * 2),
                                  (np.int64(0), np.ones(3)))[1]
    f = ag.function(fn, autograph=False, optimize=optimize)
    r = f(np.int64(0))
    r += 5
    np.testing.assert_array_equal(f(np.int64(0)), np.ones(3))


def test_identity_inside_a_branch_does_not_return_the_callers_array():
    def fn(x, p):
        return runtime.cond(p > 0, lambda: x * 1, lambda: x * 2)
    f = ag.function(fn, autograph=False)
    x = np.ones(3)
    y = f(x, np.float64(1))
    y[0] = 42
    np.testing.assert_array_equal(x, np.ones(3))


def test_variable_storage_cannot_be_written_through_a_read():
    v = ag.Variable(np.zeros(3))
    h = ag.function(lambda: v.value, autograph=False)
    r = h()
    with pytest.raises(ValueError, match="read-only"):
        r += 1
    np.testing.assert_array_equal(v.numpy(), np.zeros(3))
    v.assign_add(np.ones(3))
    np.testing.assert_array_equal(v.numpy(), np.ones(3))


def test_concrete_function_binds_defaults_and_keywords():
    def d(x, scale=2.0):
        return x * scale
    f = ag.function(d, autograph=False)
    cf = f.get_concrete_function(np.ones(2))
    np.testing.assert_array_equal(cf(np.ones(2)), np.full(2, 2.0))
    np.testing.assert_array_equal(cf(np.ones(2), scale=2.0), np.full(2, 2.0))


def test_no_hoisting_of_ops_that_could_fail_with_unknown_shapes():
    def fn(a, b, n):
        return runtime.while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + np.sum(a + b)),
                                  (np.int64(0), np.float64(0)))[1]
    f = ag.function(fn, autograph=False)
    cf = f.get_concrete_function(ag.TensorSpec((None,), np.float64),
                                 ag.TensorSpec((None,), np.float64), np.int64(0))
    assert cf(np.ones(2), np.ones(3), np.int64(0)) == 0.0
