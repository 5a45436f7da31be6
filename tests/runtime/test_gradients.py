"""Gradients: eager tape, graph tape and central differences agree (float64)."""
import numpy as np
import pytest

import autograph as ag
from runtime import cond, while_loop


def numeric_grad(f, x, eps=1e-6):
    x = np.array(x, dtype=np.float64)
    g = np.zeros_like(x)
    for i in np.ndindex(x.shape):
        up, down = x.copy(), x.copy()
        up[i] += eps
        down[i] -= eps
        g[i] = (np.sum(f(up)) - np.sum(f(down))) / (2 * eps)
    return g


def eager_grad(f, x):
    with ag.GradientTape() as tape:
        xw = tape.watch(np.array(x, dtype=np.float64))
        y = f(xw)
    return tape.gradient(y, xw)


def graph_grad(f, x):
    def step(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = f(x)
        return tape.gradient(y, x)
    return ag.function(step, autograph=False)(np.array(x, dtype=np.float64))


PROGRAMS = {
    "poly": (lambda x: x * x * x - 2 * x, [0.5, -1.5, 2.0]),
    "broadcast": (lambda x: np.tanh(x[:, None] * np.arange(1.0, 4.0)), [0.3, -0.2]),
    "reduce": (lambda x: np.mean(np.exp(x), axis=0) + np.max(x), [[0.1, 0.7], [0.4, -0.3]]),
    "matmul": (lambda x: x @ np.array([[1.0, 2.0], [3.0, -1.0]]) @ x.T, [[0.2, 0.5], [1.0, -1.0]]),
    "where_clip": (lambda x: np.where(x > 0, np.sqrt(np.abs(x)), np.clip(x, -0.5, 0.5)), [0.4, -0.2, -0.9]),
    "indexing": (lambda x: x[1:] * x[:-1] + x[np.array([0, 0, 2])].sum(), [1.0, 2.0, 3.0]),
    "cond": (lambda x: cond(np.sum(x) > 0, lambda: x * x, lambda: x * x * x), [-2.0, 1.5]),
    "cond2": (lambda x: cond(np.sum(x) > 0, lambda: x * x, lambda: x * x * x), [1.0, 2.0]),
    "while": (lambda x: while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, np.sin(y) * x),
                                    (np.int64(0), x))[1], [0.3, 1.2]),
    "nested": (lambda x: while_loop(
        lambda i, y: i < 4,
        lambda i, y: (i + 1, cond(i % 2 == 0, lambda: y * x, lambda: y + np.exp(-x))),
        (np.int64(0), np.ones_like(x)))[1], [0.5, -0.4]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_three_way_gradients(name):
    f, x = PROGRAMS[name]
    expected = numeric_grad(f, x)
    np.testing.assert_allclose(graph_grad(f, x), expected, rtol=1e-5, atol=1e-7)
    if name not in ("while", "nested", "cond", "cond2"):   # symbolic-only constructs
        np.testing.assert_allclose(eager_grad(f, x), expected, rtol=1e-5, atol=1e-7)


def test_seed_cube_in_function():
    @ag.function(autograph=False)
    def cube_grad(x):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = x * x * x
        return tape.gradient(y, x)
    assert cube_grad(np.float64(3.0)) == 27.0


def test_seed_conditional_gradient():
    f, _ = PROGRAMS["cond"]
    np.testing.assert_array_equal(graph_grad(f, [-2.0, 2.0]), [12.0, 12.0])
    np.testing.assert_array_equal(graph_grad(f, [1.0, 2.0]), [2.0, 4.0])


def test_variables_watched_automatically_and_structure_kept():
    w = ag.Variable(np.array([1.0, -2.0]))
    b = ag.Variable(np.array(0.5))
    x = np.array([3.0, 4.0])
    with ag.GradientTape() as tape:
        loss = np.sum((x * w + b) ** 2)
    grads = tape.gradient(loss, {"w": w, "b": [b]})
    r = x * w.numpy() + b.numpy()
    np.testing.assert_allclose(grads["w"], 2 * r * x)
    np.testing.assert_allclose(grads["b"][0], np.sum(2 * r))


def test_unrelated_source_gives_none_and_tape_use_twice_fails():
    a, b = ag.Variable(np.ones(2)), ag.Variable(np.ones(2))
    with ag.GradientTape() as tape:
        y = np.sum(a * 2)
    assert tape.gradient(y, [a, b])[1] is None
    with pytest.raises(RuntimeError, match="persistent"):
        tape.gradient(y, a)


def test_plain_array_source_explains_watch():
    x = np.ones(2)
    with ag.GradientTape() as tape:
        tape.watch(x)
        y = np.sum(x)
    with pytest.raises(ValueError, match="x = tape.watch"):
        tape.gradient(y, x)


def test_integer_inputs_have_no_gradient():
    @ag.function(autograph=False)
    def f(x, k):
        with ag.GradientTape() as tape:
            tape.watch(x)
            y = np.sum(x * k)
        return tape.gradient(y, x)
    np.testing.assert_array_equal(f(np.ones(2), np.arange(2)), [0.0, 1.0])


def test_an_open_tape_does_not_see_other_threads():
    import threading

    v = ag.Variable(np.ones(2))
    seen = {}
    opened, done = threading.Event(), threading.Event()

    def other():
        opened.wait()
        seen["read"] = type(v.value)
        seen["sin"] = type(np.sin(v))
        done.set()

    t = threading.Thread(target=other)
    t.start()
    with ag.GradientTape() as tape:
        y = np.sum(v * 2)
        opened.set()
        done.wait()
    t.join()
    assert seen == {"read": np.ndarray, "sin": np.ndarray}
    np.testing.assert_array_equal(tape.gradient(y, v), np.full(2, 2.0))


def test_loop_under_a_tape_saves_its_states_instead_of_running_twice():
    @ag.function(autograph=False)
    def step(x, n):
        with ag.GradientTape() as tape:
            tape.watch(x)
            _, y = while_loop(lambda i, y: i < n, lambda i, y: (i + 1, np.sin(y) * x),
                              (np.int64(0), x))
        return tape.gradient(y, x)

    x = np.array([0.3, 1.2])
    f = PROGRAMS["while"][0]
    np.testing.assert_allclose(step(x, np.int64(3)), numeric_grad(f, x), rtol=1e-5)
    code = step.get_concrete_function(x, np.int64(3)).python_code
    assert code.count("while ") == 2          # forward (saving states) + backward
    assert "save_state" in code
