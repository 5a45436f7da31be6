"""Binding arguments: every calling convention (keywords, defaults, keyword-only,
`*args`/`**kwargs`, positional-only, methods bound and through the class,
input_signature) gives the values eager Python gives, and a bad call raises Python's
own TypeError with Python's message. Each case runs twice so the second call takes the
fast path (the bound arguments meet an existing trace)."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag

X = np.arange(4.0)
Y = np.linspace(-1.0, 1.0, 4)


def with_defaults(x, y=None, scale=2.0, shift=0.0):
    out = x * scale + shift
    return out if y is None else out + y


def keyword_only(x, *, y, flip=False):
    return y - x if flip else x - y


def var_args(x, *rest, **options):
    total = x
    for r in rest:
        total = total + r
    return total * options.get("scale", 1.0)


def positional_only(x, y=1.0, /, z=0.0):
    return x * y + z


class Layer:
    def __init__(self, w):
        self.w = w

    def forward(self, x, bias=0.5, *, relu=True):
        y = x * self.w + bias
        return np.maximum(y, 0.0) if relu else y


CALLS = [
    (with_defaults, (X,), {}),
    (with_defaults, (X,), {"y": Y}),
    (with_defaults, (X, Y), {"shift": -0.0}),
    (with_defaults, (X,), {"scale": 3.0, "shift": 1.5}),
    (with_defaults, (), {"x": X, "scale": np.float32(2.0)}),
    (keyword_only, (X,), {"y": Y}),
    (keyword_only, (X,), {"y": Y, "flip": True}),
    (var_args, (X,), {}),
    (var_args, (X, Y, Y), {"scale": 0.5}),
    (var_args, (X, 1.0), {}),
    (positional_only, (X,), {}),
    (positional_only, (X, 2.0), {"z": 1.0}),
]


@pytest.mark.parametrize("fn, args, kwargs", CALLS,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(CALLS)])
@pytest.mark.parametrize("jit", [False, True])
def test_conventions_match_python(fn, args, kwargs, jit):
    if jit:
        pytest.importorskip("numba")
    f = ag.function(fn, jit_compile=jit)
    expected = fn(*args, **kwargs)
    for _ in range(2):
        got = f(*args, **kwargs)
        assert type(got) is type(expected) and got.dtype == expected.dtype
        np.testing.assert_array_equal(got, expected)
    assert f.tracing_count == 1


@pytest.mark.parametrize("through_class", [False, True])
def test_methods_match_python(through_class):
    eager, graph = Layer(np.float64(1.5)), Layer(np.float64(1.5))
    graph.forward = None  # the instance attribute is not used below
    f = ag.function(Layer.forward)
    for kwargs in ({}, {"bias": -2.0}, {"relu": False}, {"bias": 1.0, "relu": False}):
        expected = Layer.forward(eager, X, **kwargs)
        for _ in range(2):
            got = f(graph, X, **kwargs) if through_class else \
                f.__get__(graph, Layer)(X, **kwargs)
            np.testing.assert_array_equal(got, expected)


def test_a_new_self_gets_its_own_trace():
    class Scaled:
        def __init__(self, k):
            self.k = k

        @ag.function
        def apply(self, x, offset=0.0):
            return x * self.k + offset

    a, b = Scaled(2.0), Scaled(3.0)
    for _ in range(2):
        np.testing.assert_array_equal(a.apply(X), X * 2.0)
        np.testing.assert_array_equal(b.apply(X, offset=1.0), X * 3.0 + 1.0)


def test_float_arguments_key_by_bits():
    f = ag.function(lambda x, s=1.0: x / s)
    for s in (0.0, -0.0, np.nan, np.inf, -np.inf, 0.5, 0.0, -0.0):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", ag.RetracingWarning)
            np.testing.assert_array_equal(f(X, s=s), X / s)
    # 0.0 and -0.0 trace apart (the sign reaches the result), NaN traces once
    assert f.tracing_count == 6


def test_input_signature_fast_path_checks_each_call():
    f = ag.function(with_defaults, input_signature=[ag.TensorSpec((None,), np.float64)])
    for x in (X, Y, np.ones(7)):
        for _ in range(2):
            np.testing.assert_array_equal(f(x), with_defaults(x))
            np.testing.assert_array_equal(f(x, scale=4.0), with_defaults(x, scale=4.0))
    with pytest.raises(TypeError, match="int32"):
        f(X.astype(np.int32))
    with pytest.raises(ValueError, match="shape"):
        f(np.ones((2, 2)))
    assert f.tracing_count == 2


BAD_CALLS = [
    (with_defaults, (), {}),
    (with_defaults, (X,), {"bogus": 1}),
    (with_defaults, (X, Y), {"y": Y}),
    (with_defaults, (X, Y, 1.0, 2.0, 3.0), {}),
    (keyword_only, (X, Y), {}),
    (keyword_only, (X,), {}),
    (positional_only, (), {"x": X}),
    (var_args, (), {"scale": 2.0}),
]


@pytest.mark.parametrize("fn, args, kwargs", BAD_CALLS,
                         ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(BAD_CALLS)])
def test_bad_calls_raise_pythons_own_error(fn, args, kwargs):
    with pytest.raises(TypeError) as python:
        fn(*args, **kwargs)
    f = ag.function(fn)
    f(*CALLS[[c[0] for c in CALLS].index(fn)][1], **CALLS[[c[0] for c in CALLS].index(fn)][2])
    for _ in range(2):  # before and after a trace exists
        with pytest.raises(TypeError) as graph:
            f(*args, **kwargs)
        assert str(graph.value) == str(python.value)


def test_bad_method_call_names_the_method_as_python_does():
    layer = Layer(np.float64(2.0))
    with pytest.raises(TypeError) as python:
        layer.forward(X, 1.0, True)
    f = ag.function(Layer.forward)
    with pytest.raises(TypeError) as graph:
        f.__get__(layer, Layer)(X, 1.0, True)
    assert str(graph.value) == str(python.value)


def test_mutable_default_is_the_functions_own_object():
    seen = []

    def collect(x, log=seen):
        log.append(1)
        return x + len(log)

    f = ag.function(collect)
    f(X)
    assert len(seen) == 1
