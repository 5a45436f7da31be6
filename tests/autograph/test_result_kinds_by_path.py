"""A symbolic `if` that gives a Python number on one path and a NumPy value on another
returns what Python returns on the path taken: the number's own type, the NumPy scalar or
the array (runtime/control_flow/path_kinds.py). Checked strictly (type, dtype, value)
against the plain Python function, through ag.function, optimize=False, jit_compile=True,
save/load and ONNX export (values)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag


def exactly(actual, expected):
    assert type(actual) is type(expected), f"{actual!r} != {expected!r}"
    if isinstance(expected, (np.ndarray, np.generic)):
        assert actual.dtype == expected.dtype and np.shape(actual) == np.shape(expected)
        np.testing.assert_array_equal(actual, expected)
    elif isinstance(expected, tuple):
        assert len(actual) == len(expected)
        for a, e in zip(actual, expected):
            exactly(a, e)
    else:
        assert actual == expected, f"{actual!r} != {expected!r}"


def one_or_sum(x):
    if x.sum() > 0:
        r = 1
    else:
        r = x.sum()
    return r


def int_or_float(x):
    if x.sum() > 0:
        r = 0
    else:
        r = 0.5
    return r


def nested(x):
    if x[0] > 0:
        if x[1] > 0:
            r = 3
        else:
            r = x[1]
    else:
        r = np.float32(7)
    return r


def scalar_constant_or_computed(x):
    if x.sum() > 0:
        return np.int64(2)
    return x.astype(np.int64).sum() - 10


def early_return_of_a_counter(x):
    index = 0
    if x[0] > 0:
        index = index + 1
        return index
    else:
        return x[0] + 2


def counter_or_array_element(x):
    n = 0
    for _ in x:
        n += 1
    if x[1] > 0:
        r = n
    else:
        r = x[1]
    return r, n


def pair_of_kinds(x):
    if x.max() > 1:
        a, b = 1, x.min()
    else:
        a, b = x.max(), 2.5
    return a, b


def used_after(x):  # computed further: the shared dtype on every path (documented)
    if x.sum() > 0:
        r = 1
    else:
        r = x.sum()
    return r * x


PROGRAMS = [one_or_sum, int_or_float, nested, scalar_constant_or_computed,
            early_return_of_a_counter, counter_or_array_element, pair_of_kinds, used_after]
INPUTS = [np.array([1.0, 2.0, 0.5], np.float32), np.array([1.0, -2.0, 0.0], np.float32),
          np.array([-1.0, -1.0, -3.0], np.float32)]
MODES = {"graph": {}, "unoptimized": {"optimize": False}, "jit": {"jit_compile": True}}


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_each_path_returns_what_python_returns(fn, mode):
    f = ag.function(fn, **MODES[mode])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ag.JitFallbackWarning)
        for x in INPUTS + INPUTS[::-1]:  # one trace, both paths, in both orders
            exactly(f(x), fn(x))
    assert len(f._cache) == 1


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_saved_and_loaded_functions_keep_the_kinds(fn, tmp_path):
    f = ag.function(fn)
    f(INPUTS[0])
    ag.save(f, tmp_path / "f.agz")
    loaded = ag.load(tmp_path / "f.agz")
    for x in INPUTS:
        exactly(loaded(x), fn(x))


@pytest.mark.parametrize("fn", [one_or_sum, int_or_float, nested],
                         ids=lambda f: f.__name__)
def test_onnx_export_gives_the_shared_value(fn):
    import onnxruntime

    f = ag.function(fn)
    model = ag.export_onnx(f, None, INPUTS[0])
    session = onnxruntime.InferenceSession(model.SerializeToString())
    name = session.get_inputs()[0].name
    for x in INPUTS:
        (got,) = session.run(None, {name: x})
        np.testing.assert_array_equal(got, np.asarray(fn(x), got.dtype))


def test_the_graph_holds_one_value_of_the_shared_dtype():
    # the int and the float promote to one float64 value; the kind picks int on its path
    cf = ag.function(int_or_float).get_concrete_function(INPUTS[0])
    assert "path_result" in cf.python_code
    cond = next(n for n in cf.graph.nodes if n.op.name == "cond")
    assert cond.outputs[0].dtype == np.float64


def test_gradients_flow_through_the_path_taken():
    w = np.array([-1.0, -1.0, -3.0])

    @ag.function
    def grad(w):
        with ag.GradientTape() as tape:
            w = tape.watch(w)
            if w.sum() > 0:
                r = 1.0
            else:
                r = (w * w).sum()
            y = r * 2
        return tape.gradient(y, w)

    np.testing.assert_allclose(grad(w), 4 * w)
