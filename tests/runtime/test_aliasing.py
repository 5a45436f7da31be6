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


def _fill(x, n):
    def body(i, out):
        return i + 1, runtime.index_update(out, i, x[i] * 2.0)
    return runtime.while_loop(lambda i, out: i < n, body, (np.int64(0), x))[1]


def test_index_updates_in_a_loop_work_in_place_on_a_private_copy():
    f = ag.function(_fill, autograph=False)
    x = np.arange(5.0)
    before = x.copy()
    np.testing.assert_array_equal(f(x, np.int64(3)), [0.0, 2.0, 4.0, 3.0, 4.0])
    np.testing.assert_array_equal(x, before)           # the caller's array is untouched
    code = f.get_concrete_function(x, np.int64(3)).python_code
    assert ".copy()" in code and "] = " in code and "index_update" not in code
    first = f(x, np.int64(5))
    second = f(x, np.int64(2))
    np.testing.assert_array_equal(first, x * 2)        # results of calls are not shared
    np.testing.assert_array_equal(second, [0.0, 2.0, 2.0, 3.0, 4.0])


def test_index_update_of_a_fresh_result_is_in_place_and_of_an_input_is_not():
    def fn(x):
        y = x * 1.5
        y = runtime.index_update(y, 0, -1.0)
        z = runtime.index_update(x, 1, 7.0)
        return y, z
    f = ag.function(fn, autograph=False)
    x = np.arange(3.0)
    y, z = f(x)
    np.testing.assert_array_equal(y, [-1.0, 1.5, 3.0])
    np.testing.assert_array_equal(z, [0.0, 7.0, 2.0])
    np.testing.assert_array_equal(x, np.arange(3.0))


class Scaled:
    def __init__(self):
        self.w = np.arange(3.0)
        self.b = np.ones(3)

    def __call__(self, x):
        return x * self.w + self.b


@pytest.mark.parametrize("optimize", [True, False])
def test_captured_arrays_changed_in_place_between_calls_are_seen(optimize):
    model = Scaled()
    f = ag.function(model.__call__, optimize=optimize)
    x = np.full(3, 2.0)
    before = f(x)
    np.testing.assert_array_equal(before, x * np.arange(3.0) + 1)
    model.w[:] = 100.0  # in place, between calls: the next call sees it, as NumPy does
    model.b += 1
    np.testing.assert_array_equal(f(x), model(x))
    np.testing.assert_array_equal(f(np.full(3, 2.0, np.float32)), x * 100 + 2)
    model.w[:] = 5.0    # once changed, the arrays are inputs: no trace per change
    traces = f.tracing_count
    np.testing.assert_array_equal(f(x), model(x))
    assert f.tracing_count == traces


def test_a_captured_array_is_copied_once_per_trace_and_not_kept_after_it():
    import runtime.core.tracing as tracing
    from runtime.core.graph import Graph

    w = np.arange(4.0)
    g = Graph("g")
    with tracing.graph_context(g):
        x = g.add_input((4,), np.float64, "x")
        a, b = np.add(x, w), np.multiply(x, w)
        assert a.node.inputs[1] is b.node.inputs[1] is not w
        assert not a.node.inputs[1].flags.writeable
    assert g.snapshots == {}


def test_read_only_and_static_arrays_changed_later_are_seen():
    ro = np.arange(4.0)
    ro.flags.writeable = False
    reps = np.array([2, 1, 1, 1])

    def g(x):
        return np.repeat(x + ro, reps)
    f = ag.function(g, autograph=False)
    x = np.ones(4)
    np.testing.assert_array_equal(f(x), g(x))
    ro.flags.writeable = True  # its owner may write again
    ro[0], reps[0] = 100.0, 3
    np.testing.assert_array_equal(f(x), g(x))
    assert f(x).shape == (6,)


@pytest.mark.parametrize("optimize", [True, False])
@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
def test_flatten_of_an_argument_is_a_copy_as_in_numpy(optimize, order):
    """`x.flatten()` always copies in NumPy (a reshape may return a view)."""
    f = ag.function(lambda x: x.flatten(order), autograph=False, optimize=optimize)
    for x in (np.arange(6.0).reshape(2, 3), np.asfortranarray(np.arange(6.0).reshape(2, 3))):
        got, want = f(x), x.flatten(order)
        assert got.tobytes() == want.tobytes() and got.strides == want.strides
        assert np.shares_memory(got, x) == np.shares_memory(want, x)
        got[0] = -1.0
        assert x.flat[0] == 0.0
