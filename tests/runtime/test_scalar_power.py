"""`**` on single numbers (runtime/exec/scalar_forms.py): NumPy scalars take NumPy's scalar
power and Python numbers Python's, both the C library's `pow`, while the `np.power` loop
(0-d arrays, or `np.power` called by name) may differ in the last bit. Each case runs
eagerly and as a graph on the same values, checked bitwise with the result's type."""
from __future__ import annotations

import numpy as np
import pytest

import autograph as ag

BASES = [0.999, 0.9, 1.0001, 2.5, 1e-3, 0.5]
EXPONENTS = list(range(1, 12)) + [20, 57, 100]


def _same(got, want):
    assert type(got) is type(want), (got, want)
    assert np.asarray(got).tobytes() == np.asarray(want).tobytes(), (got, want)


def power_op(d, t):
    return d ** t


def power_fn(d, t):
    return np.power(d, t)


def scaled(x, d, t):
    return x * (1 - d ** t)


@pytest.mark.parametrize("options", [{}, {"jit_compile": True}], ids=["graph", "jit"])
@pytest.mark.parametrize("fn", [power_op, power_fn])
@pytest.mark.parametrize("kind", ["numpy scalars", "0-d arrays"])
def test_power_of_single_numbers_is_eagers(fn, kind, options):
    f = ag.function(fn, **options)
    wrap = (lambda v: np.asarray(v)) if kind == "0-d arrays" else (lambda v: v)
    for base in BASES:
        for t in EXPONENTS:
            d, e = wrap(np.float64(base)), wrap(np.int64(t))
            _same(f(d, e), fn(d, e))


def test_power_inside_array_arithmetic_is_eagers():
    f = ag.function(scaled)
    x = np.ones(3, np.float32)
    for t in EXPONENTS:
        got, want = f(x, np.float64(0.999), np.int64(t)), scaled(x, np.float64(0.999), np.int64(t))
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes(), t


class Schedule:
    """A decay computed from Python numbers held in `self` (an optimizer's step count)."""

    def __init__(self, base, t=0):
        self.base, self.t = base, t

    def step(self, x):
        self.t += 1
        return x * (1 - self.base ** self.t), 1 - self.base ** self.t


@pytest.mark.parametrize("base", BASES)
def test_python_numbers_in_state_take_pythons_power(base):
    eager, graph = Schedule(base), Schedule(base)
    f = ag.function(graph.step)
    x = np.ones(2, np.float32)
    for _ in range(25):
        (got, got_decay), (want, want_decay) = f(x), eager.step(x)
        assert got.dtype == want.dtype and got.tobytes() == want.tobytes()
        _same(got_decay, want_decay)
        assert graph.t == eager.t


class Shrinking:
    def __init__(self):
        self.base = 3.0

    def step(self, x):
        self.base = self.base - 1.0
        return x * self.base ** -1


def test_pythons_errors_for_python_numbers():
    """0.0 ** -1 of Python numbers is Python's ZeroDivisionError, not NumPy's inf."""
    eager, graph = Shrinking(), Shrinking()
    f = ag.function(graph.step)
    x = np.ones(2)
    for _ in range(2):
        got, want = f(x), eager.step(x)
        assert got.tobytes() == want.tobytes()
    with pytest.raises(ZeroDivisionError):
        eager.step(x)
    with pytest.raises(ZeroDivisionError):
        f(x)
    assert graph.base == eager.base == 0.0


class Root:
    def __init__(self):
        self.base, self.e = -8.0, 0.5

    def step(self, x):
        self.e = self.e / 2
        return x * self.base ** self.e


def test_a_complex_python_power_is_a_clear_error():
    """Python gives a complex number; the graph holds a float: it says so, at the line."""
    eager, graph = Root(), Root()
    f = ag.function(graph.step)
    x = np.ones(2)
    first = f(x)
    assert first.tobytes() == eager.step(x).tobytes()  # traced with the value as a constant
    assert np.iscomplexobj(eager.step(x))
    with pytest.raises(ValueError, match=r"complex number.*test_scalar_power.py:\d+"):
        f(x)
