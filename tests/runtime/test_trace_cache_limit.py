"""A Function keeps at most `max_traces` traces (default 8): past it, it warns once,
naming what keeps changing, and runs calls with new signatures as plain Python.

Differential: every call is compared with the plain Python function on the same inputs
(value, dtype, shape, type), before and after the limit, with `jit_compile=True` too.
"""
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime

MODES = [{}, {"jit_compile": True}]


def same(a, b) -> None:
    assert type(a) is type(b), (type(a), type(b))
    if isinstance(a, np.ndarray):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
    else:
        assert a == b


def scale(x, k):
    if k > 2:
        return x * k
    return x - k


def limit_warnings(caught) -> list:
    return [w for w in caught if issubclass(w.category, ag.RetracingWarning)
            and "limit" in str(w.message)]


@pytest.mark.parametrize("options", MODES)
def test_default_limit_warns_once_and_runs_new_values_as_python(options):
    f = ag.function(scale, **options)
    x = np.arange(4.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for k in range(20):
            same(f(x, k), scale(x, k))
        for k in range(20):  # traced values keep serving, the others stay Python
            same(f(x, k), scale(x, k))
    assert f.tracing_count == runtime.frontend.function.DEFAULT_MAX_TRACES
    found = limit_warnings(caught)
    assert len(found) == 1
    assert "'k'" in str(found[0].message) and "max_traces" in str(found[0].message)
    assert found[0].filename == __file__  # points at the user's call


def test_configured_limit_and_no_limit():
    f = ag.function(scale, max_traces=3)
    unlimited = ag.function(scale, max_traces=None)
    x = np.ones(3, np.float32)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for k in range(12):
            same(f(x, k), scale(x, k))
            same(unlimited(x, k), scale(x, k))
    assert f.tracing_count == 3
    assert unlimited.tracing_count == 12


def test_runtime_function_takes_max_traces_and_shapes_count():
    f = runtime.function(lambda a: a * 2, max_traces=2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in range(1, 6):
            a = np.arange(float(n))
            same(f(a), a * 2)
    assert f.tracing_count == 2
    assert len(limit_warnings(caught)) == 1


def test_get_concrete_function_still_traces_past_the_limit():
    f = ag.function(scale, max_traces=1)
    x = np.arange(3.0)
    f(x, 1)
    cf = f.get_concrete_function(x, 5)
    assert cf is not None and f.tracing_count == 2


def test_bad_limit_is_a_clear_error():
    with pytest.raises(ValueError, match="max_traces"):
        ag.function(scale, max_traces=0)


class Model:
    def __init__(self):
        self.n = 1
        self.seen = []

    def head(self, w):
        self.seen.append(self.n)
        return w[: self.n] * 2  # a slice bound: needed as a Python value, so guarded


def test_traces_kept_for_python_state_count_and_state_follows_python():
    """Python state that keeps changing: its traces count towards the limit, the
    warning names it, and past the limit the object's state still equals Python's."""
    eager, traced = Model(), Model()
    f = ag.function(Model.head, max_traces=2)
    w = np.arange(6.0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for n in [1, 2, 3, 4, 1, 2, 5]:
            eager.n = traced.n = n
            same(f(traced, w), Model.head(eager, w))
            assert traced.seen == eager.seen
    assert f.tracing_count == 2
    found = limit_warnings(caught)
    assert len(found) == 1 and "n" in str(found[0].message)
