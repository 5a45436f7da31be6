"""runtime.cond / runtime.while_loop: graph vs eager, structure/dtype/shape checks."""
import numpy as np
import pytest

import runtime
from runtime import cond, while_loop
from tests.helpers import assert_same, check_three_ways


def relu_cond(x):
    return cond(np.sum(x) > 0, lambda: x, lambda: np.zeros_like(x))


def eager_cond(pred, t, f, ops=()):
    return t(*ops) if pred else f(*ops)


@pytest.mark.parametrize("x", [np.array([1.0, 2.0]), np.array([-3.0, 1.0])])
def test_cond_matches_python(x):
    f = runtime.function(relu_cond)
    assert_same(f(x), x if x.sum() > 0 else np.zeros_like(x))
    check_three_ways(relu_cond, x)


def test_cond_python_scalar_is_returned_as_one_on_its_path():
    # the graph computes one float32 / int16 value; the path taken picks the kind returned
    f = runtime.function(lambda x: cond(x > 0, lambda: x, lambda: 0))
    assert_same(f(np.float32(-2)), 0)
    assert_same(f(np.float32(2)), np.float32(2))
    assert_same(f(np.int16(-2)), 0)
    assert f.get_concrete_function(np.float32(1)).graph.outputs[0].dtype == np.float32


def test_cond_operands_structure_and_captures():
    def fn(x, y, k):
        return cond(x[0] > y, lambda a, b: {"s": a + b, "t": (a * k, 1)},
                    lambda a, b: {"s": a - b, "t": (a, 1)}, (x, y))
    for x in (np.array([3.0, 1.0]), np.array([-3.0, 1.0])):
        y = np.float64(0.5)
        expected = {"s": x + y, "t": (x * 2.0, 1)} if x[0] > y else {"s": x - y, "t": (x, 1)}
        assert_same(runtime.function(fn)(x, y, 2.0), expected)


def test_cond_differing_dim_becomes_unknown():
    f = runtime.function(lambda x: cond(x[0] > 0, lambda: x[:2], lambda: x[:1]))
    cf = f.get_concrete_function(np.ones(4))
    assert cf.graph.outputs[0].shape == (None,)
    assert_same(f(np.ones(4)), np.ones(2))
    assert_same(f(-np.ones(4)), -np.ones(1))


def test_cond_dtype_mismatch_names_output():
    f = runtime.function(lambda x: cond(x > 0, lambda: x, lambda: x.astype(np.int64), names=["y"]))
    with pytest.raises(TypeError, match=r"y has dtype float64 in the true branch but int64"):
        f(np.float64(1))


def test_cond_structure_mismatch():
    f = runtime.function(lambda x: cond(x > 0, lambda: (x, x), lambda: x))
    with pytest.raises(ValueError, match="different structures"):
        f(np.float64(1))


def test_cond_non_scalar_predicate():
    f = runtime.function(lambda x: cond(x > 0, lambda: x, lambda: -x))
    with pytest.raises(ValueError, match="must be a scalar.*np.all"):
        f(np.ones(3))


def test_cond_with_python_predicate_runs_python():
    calls = []
    out = cond(True, lambda: calls.append("t") or 1, lambda: calls.append("f") or 2)
    assert out == 1 and calls == ["t"]


def collatz(n):
    def body(n, steps):
        return cond(n % 2 == 0, lambda: n // 2, lambda: 3 * n + 1), steps + 1
    return while_loop(lambda n, steps: n > 1, body, (n, 0))


def collatz_eager(n):
    steps = 0
    while n > 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return n, steps


@pytest.mark.parametrize("n", [1, 6, 27, 97])
def test_while_collatz_matches_python(n):
    f = runtime.function(collatz)
    got = f(np.int64(n))
    assert_same(got, (np.int64(1), collatz_eager(n)[1]))  # steps: a Python int
    assert f.tracing_count == 1
    check_three_ways(collatz, np.int64(n))


def test_while_python_scalar_takes_body_dtype():
    def fn(x):
        return while_loop(lambda i, s: i < 5, lambda i, s: (i + 1, s + x), (0, 0.0))[1]
    f = runtime.function(lambda x: while_loop(lambda s, i: i < x, lambda s, i: (s + x, i + 1),
                                              (0.0, np.int32(0))))
    s, i = f(np.float32(3))
    assert_same(s, np.float32(9)) and assert_same(i, np.int32(3))
    assert runtime.function(fn)(np.float32(1)) == np.float32(5)


def test_while_maximum_iterations():
    f = runtime.function(lambda n: while_loop(lambda i: i < n, lambda i: (i + 1,), (np.int64(0),),
                                              maximum_iterations=4))
    assert_same(f(np.int64(10)), (np.int64(4),))
    assert_same(f(np.int64(2)), (np.int64(2),))
    g = runtime.function(lambda n, m: while_loop(lambda i: i < n, lambda i: (i + 1,),
                                                 (np.int64(0),), maximum_iterations=m))
    assert_same(g(np.int64(10), np.int64(3)), (np.int64(3),))


def test_while_shape_change_relaxes_unless_invariant_given():
    def grow(x):
        return while_loop(lambda v: v.shape[0] < 4 if False else np.sum(v) < 10,
                          lambda v: (np.concatenate([v, v]),), (x,))
    # the changed dimension relaxes to None (as in TF); a stated invariant must hold
    assert_same(runtime.function(grow)(np.ones(1)), (np.ones(16),))

    def grow_fixed(x):
        return while_loop(lambda v: np.sum(v) < 10, lambda v: (np.concatenate([v, v]),), (x,),
                          shape_invariants=[(1,)])
    with pytest.raises(ValueError, match=r"loop_vars\[0\].*shape \[1\].*\[2\].*shape_invariants"):
        runtime.function(grow_fixed)(np.ones(1))

    def grow_relaxed(x):
        return while_loop(lambda v: np.sum(v) < 10, lambda v: (np.concatenate([v, v]),), (x,),
                          shape_invariants=[(None,)])
    assert_same(runtime.function(grow_relaxed)(np.ones(1)), (np.ones(16),))


def test_while_dtype_change_names_variable():
    # (a widening NumPy would do, int64 -> float64, is learned; a narrowing is refused)
    f = runtime.function(lambda x: while_loop(lambda v: v < 10,
                                              lambda v: (np.astype(v * 1.5, np.int32),), (x,),
                                              names=["total"]))
    with pytest.raises(TypeError, match="total has dtype float64 before the loop but int32"):
        f(np.float64(1))


def test_nested_loops_and_conds_capture_outer_values():
    def fn(n, scale):
        def outer_body(i, acc):
            def inner_body(j, a):
                return j + 1, cond(j % 2 == 0, lambda: a + scale * j, lambda: a - 1.0)
            _, acc = while_loop(lambda j, a: j < i, inner_body, (np.int64(0), acc))
            return i + 1, acc
        return while_loop(lambda i, acc: i < n, outer_body, (np.int64(0), np.float64(0.0)))

    def eager(n, scale):
        acc = 0.0
        for i in range(n):
            for j in range(i):
                acc = acc + scale * j if j % 2 == 0 else acc - 1.0
        return np.int64(n), np.float64(acc)

    f = runtime.function(fn)
    for n in (0, 1, 5, 8):
        assert_same(f(np.int64(n), np.float64(0.5)), eager(n, 0.5))
    assert f.tracing_count == 1
    check_three_ways(fn, np.int64(6), np.float64(0.5))


def test_while_hands_over_from_python_to_graph():
    # v starts as a Python number, so the first condition is a Python bool; the body makes
    # v symbolic, and the loop continues as a graph while_loop from that state.
    def fn(x):
        return while_loop(lambda i, v: v < 100, lambda i, v: (i + 1, v * x), (0, 1.0))

    def eager(x):
        i, v = 0, 1.0
        while v < 100:
            i, v = i + 1, v * x
        return i, v

    f = runtime.function(fn)
    for x in (np.float64(3), np.float64(60), np.float64(200)):
        i, v = f(x)
        ei, ev = eager(x)
        assert_same(v, ev)
        assert int(i) == ei
    assert f.tracing_count == 1


def test_python_number_that_does_not_fit_the_other_branch_is_an_error():
    f = runtime.function(lambda x: cond(x > 0, lambda: x, lambda: 0.5, names=["y"]))
    with pytest.raises(TypeError, match="y is the Python number 0.5.*int64"):
        f(np.int64(3))
    g = runtime.function(lambda x: cond(x > 0, lambda: x, lambda: 0))
    assert_same(g(np.float32(-1)), 0)  # the Python number, on its path


def test_float_arguments_are_keyed_by_their_bits():
    f = runtime.function(lambda x, s: x / s)
    with np.errstate(divide="ignore"):
        assert f(np.ones(1), 0.0)[0] == np.inf
        assert f(np.ones(1), -0.0)[0] == -np.inf
        for _ in range(3):
            f(np.ones(1), float("nan"))
    assert f.tracing_count == 3


def test_cse_keeps_signed_zero_constants_apart():
    f = runtime.function(lambda x: np.copysign(x, 0.0) + np.copysign(x, -0.0) * 10)
    x = np.array([1.0, 2.0])
    assert_same(f(x), np.copysign(x, 0.0) + np.copysign(x, -0.0) * 10)


def test_ndarray_subclasses_are_traced_as_arrays_not_constants():
    class Tagged(np.ndarray):
        pass
    f = runtime.function(lambda x: x.sum())
    a = np.ones(3).view(Tagged)
    assert f(a) == 3.0
    a[:] = 5
    assert f(a) == 15.0 and f.tracing_count == 1
    with pytest.warns(PendingDeprecationWarning):  # NumPy discourages np.matrix itself
        m = np.matrix([[1.0]])
    with pytest.raises(TypeError, match="matrix"):
        f(m)


def test_python_number_loop_variables_in_nested_loops_keep_weak_typing():
    def f(n, x):
        def body(i, s):
            _, t = while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + x), (0, 0.0))
            return i + 1, s + t
        return while_loop(lambda i, s: i < n, body, (0, 0.0))
    i, s = runtime.function(f)(np.int64(3), np.float32(1.0))
    assert_same(s, np.float32(3.0))        # 0.0 + float32 is float32, as in Python
    assert_same(i, 3)  # a Python counter, as in Python
    g = runtime.function(lambda n: while_loop(lambda i, s: i < n, lambda i, s: (i + 1, s + 1.0),
                                              (0, 0.0)))
    assert_same(g(np.int64(3))[1], 3.0)  # a Python float throughout, as in Python
