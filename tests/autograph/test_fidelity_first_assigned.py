"""Variables first assigned inside a symbolic loop and read after it (accepted with a
run-time check that the loop ran, as tf.function does), and the "decorate the whole
training loop" pattern: a `with GradientTape() as tape:` inside a symbolic loop, whose
`tape` is not a loop variable. Graph vs the original Python on the same inputs: value,
dtype and shape, or exception type and message."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_same


def last_of_range(x, n):
    for i in range(n):
        v = x[i] * 2  # (an int index, not the value: NumPy would promote a Python int)
    return v


def last_of_while(x, n):
    i = np.int64(0)
    while i < n:
        last = x + i
        i += 1
    return last, i


def last_row(x):
    for row in x:
        doubled = row * 2
    return doubled


def with_break(x, n):
    for i in range(n):
        v = x[i]
        if v > 2:
            break
    return v


def two_first_assigned(x, n):
    k = np.int64(0)
    while k < n:
        a = x * k
        b = np.sum(a)
        k += 1
    return a, b


f32 = np.float32
CASES = [
    (last_of_range, [(np.arange(4, dtype=f32), np.int64(4)), (np.ones(4, f32), np.int64(0))]),
    (last_of_while, [(f32(1), np.int64(3)), (f32(1), np.int64(0))]),
    (last_row, [(np.arange(6, dtype=f32).reshape(2, 3),)]),  # 0 rows: see the report
    (with_break, [(np.array([1, 3, 5], f32), np.int64(3)), (np.array([1, 2, 2], f32), np.int64(3)),
                  (np.array([1, 2, 3], f32), np.int64(0))]),
    (two_first_assigned, [(np.ones(2, f32), np.int64(3)), (np.ones(2, f32), np.int64(0))]),
]


def assigned_on_one_path(x, n):
    for i in range(n):
        if i == 2:
            v = x
    return v


# bound on some iterations' paths only: carried with whether it is bound, and the read
# raises Python's UnboundLocalError when the graph took no path that bound it
CASES.append((assigned_on_one_path, [(f32(1), np.int64(3)), (f32(2), np.int64(2)),
                                     (f32(3), np.int64(5)), (f32(4), np.int64(0))]))


def _outcome(fn, args):
    try:
        return fn(*args), None
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return None, (type(e), str(e))


@pytest.mark.parametrize("fn,inputs", CASES, ids=[f.__name__ for f, _ in CASES])
def test_first_assigned_in_symbolic_loop(fn, inputs):
    f = ag.function(fn)
    for args in inputs:
        expected, error = _outcome(fn, args)
        actual, got = _outcome(f, args)
        assert got == error, args
        if error is None:
            assert_same(actual, expected)
    assert f.tracing_count == 1  # one trace serves the zero-iteration call too


def test_zero_iterations_error_names_the_variable_and_the_reading_line():
    # (Python's error where Python raises it: at the read after the loop)
    f = ag.function(last_of_while)
    with pytest.raises(UnboundLocalError) as info:
        f(f32(1), np.int64(0))
    assert "'last'" in str(info.value)
    notes = " ".join(info.value.__notes__)
    line = last_of_while.__code__.co_firstlineno + 5
    assert f"{last_of_while.__code__.co_filename}:{line}" in notes


def only_read_by_later_iterations(x, n):
    t = 0.0
    for i in range(n):
        if i > 0:
            t = t + v  # noqa: F821 - bound by the previous iteration
        v = x[i]  # noqa: F841 - read by the next iteration
    return t


def test_a_variable_only_later_iterations_read_is_no_error_when_the_loop_ran_zero_times():
    # (the graph raised UnboundLocalError at the loop for n == 0; Python returns 0.0)
    x = np.array([1.0, -2.0, 3.0])
    for jit in (False, True):
        f = ag.function(only_read_by_later_iterations, jit_compile=jit)
        for n in (np.int64(3), np.int64(0), np.int64(1)):
            assert f(x, n) == only_read_by_later_iterations(x, n)


def read_before_assigned(x, n):
    for _ in range(n):
        acc = acc + x  # noqa: F821 - read before any assignment: an error
    return acc


@pytest.mark.parametrize("fn", [read_before_assigned])
def test_needs_an_initial_value(fn):
    with pytest.raises(ValueError) as info:
        ag.function(fn)(f32(1), np.int64(3))
    msg = str(info.value)
    assert "first assigned inside this symbolic loop" in msg and "initial value" in msg
    assert f"{fn.__code__.co_filename}:{fn.__code__.co_firstlineno + 1}" in msg


# -- the whole training loop under ag.function -------------------------------------------
def make_train(w, b, loop):
    def train_for(x, y, steps, lr):
        for _ in range(steps):
            with ag.GradientTape() as tape:
                pred = x @ w + b
                loss = np.mean((pred - y) ** 2)
            gw, gb = tape.gradient(loss, [w, b])
            w.assign_sub(lr * gw)
            b.assign_sub(lr * gb)
        return loss

    def train_while(x, y, steps, lr):
        step = np.int64(0)
        loss = np.float32(0)
        while step < steps:
            with ag.GradientTape() as tape:
                loss = np.mean((x @ w + b - y) ** 2)
            grads = tape.gradient(loss, [w, b])
            w.assign_sub(lr * grads[0])
            b.assign_sub(lr * grads[1])
            step += 1
        return loss, step

    return train_for if loop == "for" else train_while


def _data():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(8, 3)).astype(f32)
    y = (x @ np.array([1.0, -2.0, 0.5], f32) + 0.25).astype(f32)
    return x, y


def _plain(value):
    """Eagerly, a value computed under a tape comes back wrapped (TapeValue): unwrap."""
    if isinstance(value, tuple):
        return tuple(_plain(v) for v in value)
    return getattr(value, "value", value)


@pytest.mark.parametrize("loop", ["for", "while"])
def test_training_loop_with_a_tape_inside(loop):
    x, y = _data()
    results = []
    for mode in ("eager", "graph"):
        w = ag.Variable(np.zeros(3, f32))
        b = ag.Variable(f32(0))
        fn = make_train(w, b, loop)
        if mode == "graph":
            fn = ag.function(fn)
        out = _plain(fn(x, y, np.int64(20), f32(0.1)))
        results.append((out, w.numpy(), b.numpy()))
    (e_out, e_w, e_b), (g_out, g_w, g_b) = results
    assert_same(g_out, e_out, rtol=1e-5)
    assert_same(g_w, e_w, rtol=1e-5)
    assert_same(g_b, e_b, rtol=1e-5)
    assert not np.allclose(e_w, 0)  # the loop did train


def test_tape_is_not_a_loop_variable():
    w, b = ag.Variable(np.zeros(3, f32)), ag.Variable(f32(0))
    code = ag.to_code(make_train(w, b, "for"))
    assert "'tape'" not in code
