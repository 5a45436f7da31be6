"""Eager GradientTape and writes: the tape never writes into its values' memory (its
records hold them), so `y += v` and `y[i] = v` are recorded as new values the same
object then holds, and refused with a clear error naming the differentiable
alternatives where NumPy would write through to a view. The functional forms agree with
NumPy and with central differences, eager and graph."""
import numpy as np
import pytest

import autograph as ag
from runtime import index_update
from tests.runtime.gradcheck import three_way

RNG = np.random.default_rng(11)
X, V, W = (RNG.standard_normal((3, 3)) for _ in range(3))


def test_in_place_without_views_matches_numpy_and_differences():
    def fn(v, w):
        y = v * 1.5
        y += w * v
        y *= np.sin(w)
        y /= 2.0 + w * w
        return y
    three_way(fn, V, W)


def test_subscript_assignment_into_a_viewed_tape_value_says_what_to_use():
    """(Without a view the write is recorded: tests/runtime/test_tape_values.py.)"""
    with ag.GradientTape() as tape:
        v = tape.watch(V.copy())
        y = v * 1.0
        view = y[1:]  # a live view NumPy would write through to
        with pytest.raises(TypeError, match=r"index_update.*ag\.function"):
            y[0] = v[1]
        del view
        with pytest.raises(TypeError, match=r"array given to tape\.watch"):
            v[0] = 1.0


def test_reported_pattern_written_functionally_three_ways():
    """The view-then-write pattern with runtime.index_update: eager tape, graph tape and
    central differences agree."""
    def fn(x, v, w):
        y = x * 1.5
        y = index_update(y, (slice(None), slice(0, 1)), v[:, 1:2] * y[:, :1])
        return y * w
    assert "index_update" in three_way(fn, X, V, W)
