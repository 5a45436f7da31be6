"""Graph lists: appended inside symbolic loops and conditionals, then stacked."""
import numpy as np
import pytest

import autograph as ag
import runtime
from tests.helpers import assert_same


def collect(x, n):
    xs = runtime.list_new()
    _, xs = runtime.while_loop(lambda i, xs: i < n,
                               lambda i, xs: (i + 1, runtime.list_append(xs, x * i)),
                               (np.int64(0), xs))
    return runtime.list_stack(xs), runtime.list_len(xs)


@pytest.mark.parametrize("n", [1, 3, 6])
def test_list_appended_in_symbolic_loop_is_stacked(n):
    f = ag.function(collect, autograph=False)
    x = np.arange(3.0)
    stacked, length = f(x, np.int64(n))
    assert_same(stacked, np.stack([x * i for i in range(n)]))
    assert int(length) == n
    assert f.tracing_count == 1
    cf = f.get_concrete_function(x, np.int64(n))
    assert cf.graph.outputs[0].shape == (None, 3)


def test_list_is_fresh_on_every_call():
    f = ag.function(collect, autograph=False)
    f(np.ones(2), np.int64(2))
    stacked, length = f(np.ones(2), np.int64(2))
    assert int(length) == 2 and stacked.shape == (2, 2)


def test_list_in_conditional_branch():
    def fn(x):
        xs = runtime.list_new([x])
        xs = runtime.cond(np.sum(x) > 0, lambda: runtime.list_append(xs, x * 2), lambda: xs)
        return runtime.list_stack(xs)
    f = ag.function(fn, autograph=False)
    assert_same(f(np.ones(2)), np.stack([np.ones(2), np.full(2, 2.0)]))
    assert_same(f(-np.ones(2)), np.stack([-np.ones(2)]))


def test_appending_different_shapes_is_an_error():
    def fn(x):
        xs = runtime.list_new([x])
        return runtime.list_stack(runtime.list_append(xs, x[:1]))
    with pytest.raises(ValueError, match="different shapes"):
        ag.function(fn, autograph=False)(np.ones(2))


def test_empty_stack_fails_at_run_time_with_message():
    f = ag.function(collect, autograph=False)
    with pytest.raises(ValueError, match="empty list"):
        f(np.ones(2), np.int64(0))


def test_python_lists_stay_python():
    xs = runtime.list_new([1])
    runtime.list_append(xs, 2)
    assert xs == [1, 2] and runtime.list_len(xs) == 2
    assert_same(runtime.list_stack([np.ones(2), np.zeros(2)]), np.stack([np.ones(2), np.zeros(2)]))


def test_np_stack_of_a_graph_list_explains_list_stack():
    def fn(x, n):
        xs = runtime.list_new()
        _, xs = runtime.while_loop(lambda i, xs: i < n,
                                   lambda i, xs: (i + 1, runtime.list_append(xs, x * i)),
                                   (np.int64(0), xs))
        return np.stack(xs)
    with pytest.raises(ag.GraphModeError, match="list_stack"):
        ag.function(fn, autograph=False)(np.arange(2.0), np.int64(3))


def test_python_number_loop_variable_with_nested_loop_takes_inner_dtype():
    def fn(n, step):
        def outer(i, total):
            _, total = runtime.while_loop(lambda j, t: j < i, lambda j, t: (j + 1, t + step),
                                          (np.int64(0), total))
            return i + 1, total
        return runtime.while_loop(lambda i, t: i < n, outer, (np.int64(0), 0))[1]
    f = ag.function(fn, autograph=False)
    out = f(np.int64(4), np.int32(2))
    assert_same(out, np.int32(12))   # 0 + int32 is int32 (NEP 50), as in eager Python


def test_gradient_of_a_loop_that_appends_leaves_the_list_intact():
    from runtime import while_loop

    def step(x, n):
        with ag.GradientTape() as tape:
            tape.watch(x)
            xs = runtime.list_new()
            _, y, xs = while_loop(lambda i, y, xs: i < n,
                                  lambda i, y, xs: (i + 1, y * x, runtime.list_append(xs, y)),
                                  (np.int64(0), x, xs))
        grad = tape.gradient(y, x)
        return grad, runtime.list_stack(xs)

    grad, stacked = ag.function(step, autograph=False)(np.array([2.0]), np.int64(3))
    assert_same(grad, np.array([32.0]))          # d(x**4)/dx
    assert_same(stacked, np.array([[2.0], [4.0], [8.0]]))


def _rnn(x, w, n):
    from runtime import while_loop

    xs = runtime.list_new()

    def body(i, h, xs):
        h = np.tanh(h * w + x[i])
        return i + 1, h, runtime.list_append(xs, h)
    _, _, xs = while_loop(lambda i, h, xs: i < n, body, (np.int64(0), np.zeros(2), xs))
    return np.sum(runtime.list_stack(xs) ** 2)


def _rnn_eager(x, w, n):
    h, out = np.zeros(2), []
    for i in range(n):
        h = np.tanh(h * w + x[i])
        out.append(h)
    return np.sum(np.stack(out) ** 2)


def _central(fn, a, eps=1e-6):
    g = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        up, down = a.copy(), a.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (fn(up) - fn(down)) / (2 * eps)
    return g


def test_gradient_through_a_list_stacked_after_a_symbolic_loop():
    def step(x, w, n):
        with ag.GradientTape() as tape:
            tape.watch([x, w])
            y = _rnn(x, w, n)
        return y, tape.gradient(y, [x, w])

    f = ag.function(step, autograph=False)
    x = np.array([[0.1, 0.2], [0.3, -0.1], [0.5, 0.4], [-0.2, 0.1]])
    w = np.array([0.7, -0.3])
    for n in (4, 2):
        y, (gx, gw) = f(x, w, np.int64(n))
        np.testing.assert_allclose(y, _rnn_eager(x, w, n))
        np.testing.assert_allclose(gx, _central(lambda a: _rnn_eager(a, w, n), x), rtol=1e-6, atol=1e-9)
        np.testing.assert_allclose(gw, _central(lambda a: _rnn_eager(x, a, n), w), rtol=1e-6)
    assert f.tracing_count == 1


def test_appends_in_a_branch_follow_python_aliasing():
    def fn(x):
        xs = runtime.list_new([x])
        ys = runtime.cond(np.sum(x) > 0, lambda: runtime.list_append(xs, x * 2), lambda: xs)
        return runtime.list_stack(ys), runtime.list_stack(xs)
    f = ag.function(fn, autograph=False)
    ys, xs = f(np.ones(2))
    assert ys.shape == (2, 2) and xs.shape == (2, 2)   # one list, as in Python


def test_gradient_through_appends_in_a_branch():
    def step(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            xs = runtime.list_new([x])
            xs = runtime.cond(np.sum(x) > 0, lambda: runtime.list_append(xs, x * x),
                              lambda: runtime.list_append(xs, -x))
            y = np.sum(runtime.list_stack(xs) * np.array([[1.0], [3.0]]))
        return y, tape.gradient(y, x), runtime.list_stack(xs)
    f = ag.function(step, autograph=False)
    x = np.array([0.5, 2.0])
    y, g, stacked = f(x)
    np.testing.assert_allclose(g, 1 + 6 * x)
    assert stacked.shape == (2, 2)
    y, g, stacked = f(-x)
    np.testing.assert_allclose(g, np.full(2, 1 - 3.0))
