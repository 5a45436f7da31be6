"""What an eager GradientTape hands the user is a NumPy value once the computation is done
(isinstance, formatting, .item(), .tolist(), str), and its gradients through writes
(`y[i] = v`, `y += v`, through an alias) agree with the graph tape and with central
differences (runtime/autodiff/tape.py)."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag
from tests.runtime.gradcheck import three_way

RNG = np.random.default_rng(5)
X, V = RNG.standard_normal((3, 4)), RNG.standard_normal(4)


def _model(x, v):
    h = np.tanh(x @ v)
    return h, np.sum(h * h)


def _eager_values():
    with ag.GradientTape() as tape:
        x = tape.watch(X.copy())
        h, loss = _model(x, V)
    return tape, x, h, loss


@pytest.mark.parametrize("pick", [0, 1], ids=["array", "scalar"])
def test_values_after_the_computation_are_numpy_values(pick):
    tape, x, *values = _eager_values()
    got, expected = values[pick], _model(X, V)[pick]
    assert isinstance(got, type(expected))
    assert isinstance(got, (np.ndarray, np.generic))
    assert f"{got}" == f"{expected}" and str(got) == str(expected)
    assert repr(got) == repr(expected)
    if pick:
        assert f"{got:.3f}" == f"{expected:.3f}"
        assert float(got) == float(expected)
    assert got.item(0) == expected.item(0) if pick == 0 else got.item() == expected.item()
    assert got.tolist() == expected.tolist()
    np.testing.assert_array_equal(np.asarray(got), expected)
    grad = tape.gradient(values[1], x)
    assert type(grad) is np.ndarray


def _write_item(x, v):
    y = x * 1.5
    y[0] = v * y[1]  # a row written with values computed from y itself
    y[2, 1] = v[0]
    return np.sum(y * x)


def _write_then_alias(x, v):
    y = x * 2.0
    z = y  # every name bound to y sees the write, as in NumPy
    y[1] = v * 3.0
    y += x
    y *= v
    return np.sum(z * z)


def _write_in_a_loop(x, v):
    y = np.zeros_like(x)  # a tape value: zeros_like of one
    for i in range(x.shape[0]):
        y[i] = np.sin(x[i] * v) + (y[i - 1] if i else 0.0)
    return np.sum(y)


def _write_scalar_items(x, v):
    y = v * 1.0
    y[0] += x[0, 0]  # a 0-d item: no view of y
    y[3] = y[0] * y[1]
    return np.sum(y * y)


@pytest.mark.parametrize("fn", [_write_item, _write_then_alias, _write_in_a_loop,
                                _write_scalar_items], ids=lambda f: f.__name__)
def test_gradients_through_writes_agree_eager_graph_and_differences(fn):
    three_way(fn, X, V)


def test_alias_sees_writes_like_numpy():
    def fn(x):
        y = x * 2.0
        z = y
        y[0] = 7.0
        y += 1.0
        return z, z is y
    with ag.GradientTape() as tape:
        x = tape.watch(V.copy())
        got, same = fn(x)
    expected, expected_same = fn(V.copy())
    assert same == expected_same
    np.testing.assert_array_equal(np.asarray(got), expected)
    np.testing.assert_array_equal(tape.gradient(got, x), np.full(4, 2.0) * [0, 1, 1, 1])


def test_in_place_operator_keeps_numpy_casting_rules():
    with ag.GradientTape() as tape:
        x = tape.watch(V.astype(np.float32))
        y = x * 2
        y += np.float64(0.5)  # NumPy casts into y's float32
        with pytest.raises(ValueError):
            y += np.ones((2, 4), np.float32)  # NumPy cannot broadcast into y
    assert np.asarray(y).dtype == np.float32
    np.testing.assert_allclose(np.asarray(y), V.astype(np.float32) * 2 + 0.5, rtol=1e-6)


def test_after_the_block_writes_are_numpy_writes():
    _, x, h, loss = _eager_values()
    alias, plain = h, _model(X, V)[0]
    h += 1.0
    h[0] = 5.0
    plain += 1.0
    plain[0] = 5.0
    assert alias is h
    np.testing.assert_array_equal(np.asarray(h), plain)
