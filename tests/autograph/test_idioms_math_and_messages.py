"""`math.*` on symbolic values computes with NumPy and gives math's results and errors;
a symbolic value used where Python needs a concrete one is refused with the fix for the
case at hand (AutoGraph off, a comprehension's filter, code left as Python)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import autograph as ag
from autograph.operators.math_calls import MATH_OVERLOADS

UNARY = [f for f in MATH_OVERLOADS if f not in (math.atan2, math.copysign, math.hypot,
                                                  math.pow, math.fmod)]
BINARY = [math.atan2, math.copysign, math.hypot, math.pow, math.fmod, math.log]
VALUES = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, 3.7, -3.7, 1e-300, 700.0, 1e308, -1e308,
          np.inf, -np.inf, np.nan]


def outcome(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no NumPy warning where math raises or is silent
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        try:
            return "value", fn(*args)
        except Exception as e:  # noqa: BLE001 - the outcome compared
            return "error", (type(e), str(e).split(" (at ")[0])


def same(got, want):
    assert got[0] == want[0], (got, want)
    if want[0] == "error":
        assert got[1] == want[1]
        return
    g, w = got[1], want[1]
    assert type(g) is type(w), (g, w)
    assert (g == w) or (g != g and w != w), (g, w)  # NaN equals NaN here


@pytest.mark.parametrize("fn", UNARY, ids=lambda f: f.__name__)
def test_unary_math_matches_python(fn):
    def program(x):
        return fn(x)
    for jit in (False, True):
        f = ag.function(program, jit_compile=jit)
        for v in VALUES:
            if fn in (math.floor, math.ceil, math.trunc) and 2.0 ** 62 < abs(v) < np.inf:
                continue  # beyond int64: below
            same(outcome(f, np.float64(v)), outcome(fn, v))
        assert len(f._cache) == 1


@pytest.mark.parametrize("fn", [math.floor, math.ceil, math.trunc], ids=lambda f: f.__name__)
def test_an_integer_beyond_int64_is_an_overflow_error_naming_the_fix(fn):
    # Python's int would hold it exactly; the graph holds int64, and never wraps
    f = ag.function(lambda x: fn(x))
    with pytest.raises(OverflowError, match=f"does not fit in int64.*np.{fn.__name__}"):
        f(np.float64(1e308))


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_binary_math_matches_python(fn):
    def program(x, y):
        return fn(x, y)
    f = ag.function(program)
    for a in VALUES[::2]:
        for b in VALUES[1::2] + [0.0, 1.0]:
            same(outcome(f, np.float64(a), np.float64(b)), outcome(fn, a, b))


def test_integer_and_float32_inputs_compute_in_float64_as_math_does():
    f = ag.function(lambda x: (math.sqrt(x), math.floor(x), math.isnan(x)))
    for x in (np.int64(9), np.float32(2.25), np.int8(-3)):
        same(outcome(f, x), outcome(lambda v: (math.sqrt(v), math.floor(v), math.isnan(v)), x))


def test_math_of_an_array_is_a_type_error_as_in_python():
    f = ag.function(lambda x: math.sqrt(x))
    with pytest.raises(TypeError, match="only 0-dimensional arrays"):
        f(np.ones(3))


def _bool_in_filter(x):
    return np.array([v * 2 for v in x if v > 0])


class Box:
    def add(self, x):  # a list-method name: called as Python, not converted
        if x.sum() > 0:
            return x
        return -x


def _left_as_python(x):
    return Box().add(x)


def _python_float(x):
    return float(x.sum()) if False else math.sqrt(x.sum())


@pytest.mark.parametrize("autograph", [True, False])
def test_refusals_name_the_fix_for_the_case(autograph):
    x = np.array([1.0, -2.0, 3.0])
    with pytest.raises(ag.GraphModeError) as info:
        ag.function(_bool_in_filter, autograph=autograph)(x)
    assert "boolean mask" in str(info.value) and "x[x > 0] * 2" in str(info.value)
    with pytest.raises(ag.GraphModeError) as info:
        ag.function(_left_as_python, autograph=autograph)(x)
    text = str(info.value)
    assert ("Let AutoGraph convert" in text) == (not autograph)
    assert ("AutoGraph is on, but this code was left as Python" in text) == autograph
    assert "test_idioms_math_and_messages.py" in text  # the user's line
    if not autograph:  # with AutoGraph on, math.sqrt of a symbolic value just works
        with pytest.raises(ag.GraphModeError, match="Let AutoGraph convert"):
            ag.function(_python_float, autograph=False)(x)
    else:
        assert ag.function(_python_float)(x) == math.sqrt(2.0)


def test_gradients_of_math_calls_match_finite_differences():
    fns = [math.sqrt, math.exp, math.log, math.sin, math.tanh, math.atan, math.cbrt,
           lambda v: math.log(v, 3.0), lambda v: math.atan2(v, 0.7), lambda v: math.pow(v, 2.5),
           lambda v: math.hypot(v, 1.5), lambda v: math.fmod(v, 0.4)]

    for fn in fns:
        @ag.function
        def grad(x, fn=fn):
            with ag.GradientTape() as tape:
                x = tape.watch(x)
                y = fn(x) * 2.0
            return tape.gradient(y, x)

        x, h = 1.3, 1e-6
        numeric = (fn(x + h) * 2.0 - fn(x - h) * 2.0) / (2 * h)
        np.testing.assert_allclose(grad(np.float64(x)), numeric, rtol=1e-6)


def test_saved_functions_run_the_math_calls(tmp_path):
    f = ag.function(lambda x: (math.sqrt(x), math.floor(x), math.log(x, 2.0)))
    f(np.float64(2.0))
    ag.save(f, tmp_path / "m.agz")
    loaded = ag.load(tmp_path / "m.agz")
    for v in (2.0, 9.5):
        same(outcome(loaded, np.float64(v)), outcome(lambda x: (math.sqrt(x), math.floor(x),
                                                                 math.log(x, 2.0)), v))
    with pytest.raises(ValueError, match="math domain error"):
        loaded(np.float64(-1.0))
