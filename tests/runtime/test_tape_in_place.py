"""Augmented assignment on values an eager GradientTape watches: `y += v` computes
`y + v`, recorded, and `y` holds the result (the tape never writes its values' memory).
Where no live view of `y` exists this equals NumPy; where one does, NumPy would write
through to it, so the tape refuses instead of giving the view stale values."""
import numpy as np
import pytest

import autograph as ag


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "**="])
def test_in_place_operator_without_views_equals_numpy(op):
    def run(watch):
        v = watch(np.array([0.5, 1.5, 2.5]))
        y = v * 2.0
        exec(f"y {op} v", {}, scope := {"y": y, "v": v})
        return scope["y"]

    expected = run(lambda a: a)
    with ag.GradientTape() as tape:
        got = run(tape.watch)
    np.testing.assert_array_equal(np.asarray(got), expected)


def test_gradient_through_in_place_operators_matches_finite_differences():
    x0 = np.arange(4.0)
    with ag.GradientTape() as tape:
        v = tape.watch(x0)
        y = v * 1.5
        z = y * 2.0
        y += 1.0
        y *= v
        loss = np.sum(y * z)
    grad = tape.gradient(loss, v)

    def f(x):
        y = x * 1.5
        z = y * 2.0
        y = (y + 1.0) * x
        return np.sum(y * z)

    eps = 1e-6
    fd = [(f(x0 + eps * e) - f(x0 - eps * e)) / (2 * eps) for e in np.eye(4)]
    np.testing.assert_allclose(grad, fd, rtol=1e-6)
    assert np.asarray(loss) == f(x0)


@pytest.mark.parametrize("make_view", [lambda y: y[1:3], lambda y: y[None], lambda y: y.T,
                                       lambda y: np.reshape(y, (2, 2))])
def test_in_place_operator_on_a_viewed_tape_value_is_refused(make_view):
    with ag.GradientTape() as tape:
        v = tape.watch(np.arange(4.0))
        y = v * 1.5
        view = make_view(y)  # alive: NumPy's write would show through it
        with pytest.raises(TypeError, match=r"y \+= v.*shares memory with a view.*"
                                            r"y = y \+ v.*ag\.function"):
            y += 1.0
        del view
        y += 1.0  # no view left to see the difference: recorded
    np.testing.assert_array_equal(np.asarray(y), np.arange(4.0) * 1.5 + 1.0)


def test_in_place_operator_through_the_view_is_refused():
    with ag.GradientTape() as tape:
        v = tape.watch(np.arange(4.0))
        y = v * 1.5
        r = y[1:3]
        with pytest.raises(TypeError, match=r"y \*= v"):
            r *= 2.0


def test_in_a_function_the_view_sees_the_write_as_in_numpy():
    def f(v):
        y = v * 1.5
        r = y[1:3]
        y += 1.0
        return r * 2.0

    x = np.arange(4.0)
    np.testing.assert_array_equal(ag.function(f)(x), f(x))


def test_after_the_block_a_tape_value_is_its_array():
    with ag.GradientTape() as tape:
        v = tape.watch(np.arange(4.0))
        y = v * 1.5
        r = y[1:3]
    y += 1.0  # not recording any more: computed and rebound, no error
    np.testing.assert_array_equal(np.asarray(y), np.arange(4.0) * 1.5 + 1.0)
    assert r is not None
