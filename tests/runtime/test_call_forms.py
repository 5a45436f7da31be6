"""The executor's cheaper spellings of NumPy functions (runtime/exec/call_forms.py):
`x.transpose()` for `np.transpose(x)`, `x[:, ::-1]` for `np.flip(x, 1)`, the flat dot
product for `np.linalg.norm(x)`, ... Each is checked against eager NumPy on the same
inputs in every layout eager code passes: values bitwise, dtype, shape, strides, whether
the result is a view of the argument, and the warnings raised."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.exec.interpreter import run_graph

CASES = {
    "transpose": (lambda x: np.transpose(x), "x.transpose()"),
    "transpose_axes": (lambda x: np.transpose(x, (1, 0, 2)), "x.transpose((1, 0, 2))"),
    "reshape": (lambda x: np.reshape(x, (-1,)), "x.reshape((-1,))"),
    "reshape_F": (lambda x: np.reshape(x, (3, 8), order="F"), "x.reshape((3, 8), order='F')"),
    "flatten": (lambda x: x.flatten(), None),
    "swapaxes": (lambda x: np.swapaxes(x, 0, 2), "x.swapaxes(0, 2)"),
    "squeeze": (lambda x: np.squeeze(x[:1]), ".squeeze()"),
    "ravel": (lambda x: np.ravel(x), "x.ravel()"),
    "ravel_K": (lambda x: np.ravel(x, order="K"), "x.ravel(order='K')"),
    "flip_all": (lambda x: np.flip(x), "x[::-1, ::-1, ::-1]"),
    "flip_axis": (lambda x: np.flip(x, axis=1), "x[:, ::-1, :]"),
    "flip_axes": (lambda x: np.flip(x, axis=(0, -1)), "x[::-1, :, ::-1]"),
    "expand_dims": (lambda x: np.expand_dims(x, (0, 2)), "x.reshape((1, 2, 1, 3, 4))"),
    "astype": (lambda x: x.astype(np.int32), "x.astype(np.int32)"),
    "norm": (lambda x: np.linalg.norm(x), "flat_norm(x)"),
    "argmax": (lambda x: np.argmax(x, axis=1), "x.argmax(axis=1)"),
    "argmin_keep": (lambda x: np.argmin(x, axis=0, keepdims=True), "x.argmin(axis=0, keepdims=True)"),
    "cumsum": (lambda x: np.cumsum(x, axis=2), "x.cumsum(axis=2)"),
    "cumprod": (lambda x: np.cumprod(x), "x.cumprod()"),
    "round": (lambda x: np.round(x, 1), "x.round(decimals=1)"),
    "diagonal": (lambda x: np.diagonal(x, 1, 0, 2), "x.diagonal(offset=1, axis1=0, axis2=2)"),
    "clip": (lambda x: np.clip(x, -0.5, 0.5), "x.clip(-0.5, 0.5)"),
    "take": (lambda x: np.take(x, np.array([2, 0]), axis=1), ".take("),
    "copy": (lambda x: np.copy(x), "x.copy('K')"),
    "atleast_1d": (lambda x: np.atleast_1d(x[0, 0]), None),
    "atleast_2d_of_1d": (lambda x: np.atleast_2d(x[0, 0]), "[None, :]"),
    "atleast_2d_of_3d": (lambda x: np.atleast_2d(x), "v1 = x "),
    "atleast_3d_of_2d": (lambda x: np.atleast_3d(x[0]), "[:, :, None]"),
    "atleast_3d_of_1d": (lambda x: np.atleast_3d(x[0, 0]), "[None, :, None]"),
    "pad": (lambda x: np.pad(x, ((0, 0), (1, 2), (0, 3))), "pad_constant(x, ((0, 0), (1, 2), (0, 3))"),
    "pad_zero_widths": (lambda x: np.pad(x, ((0, 0),) * 3, mode="constant", constant_values=0),
                        "pad_constant("),
    "pad_float_zero": (lambda x: np.pad(x, ((1, 0), (0, 0), (2, 2)), constant_values=0.0),
                       "pad_constant("),
    "pad_value": (lambda x: np.pad(x, ((1, 0), (0, 0), (2, 2)), constant_values=7), None),
    "pad_one_width": (lambda x: np.pad(x, 1), None),
    "pad_edge": (lambda x: np.pad(x, ((1, 0), (0, 0), (2, 2)), mode="edge"), None),
}


def _layouts(a):
    """`a` as eager code meets it: C, F, reversed, stepped, a transposed view."""
    return {
        "C": a,
        "F": np.asfortranarray(a),
        "reversed": a[::-1].copy()[::-1],
        "stepped": np.repeat(a, 2, axis=2)[:, :, ::2],
        "transposed view": np.ascontiguousarray(a.transpose(2, 1, 0)).transpose(2, 1, 0),
    }


def _values(dtype):
    rng = np.random.default_rng(5)
    a = rng.standard_normal((2, 3, 4)) * 3
    a.flat[:4] = [np.nan, -0.0, np.inf, -np.inf] if np.dtype(dtype).kind in "fc" else a.flat[:4]
    with np.errstate(all="ignore"):
        if np.dtype(dtype).kind == "c":
            return (a + 1j * a[::-1]).astype(dtype)
        return a.astype(dtype)


def _same(got, want, x):
    got, want = np.asarray(got), np.asarray(want)
    assert (got.dtype, got.shape, got.strides) == (want.dtype, want.shape, want.strides)
    assert got.tobytes() == want.tobytes()
    assert np.shares_memory(got, x) == np.shares_memory(want, x)


def _run(fn, x):
    """The result (or the exception's type) and the warnings of `fn(x)`."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = fn(x)
        except Exception as e:  # noqa: BLE001 - compared with eager's below
            result = type(e)
    return result, [(w.category, str(w.message)) for w in caught]


@pytest.mark.parametrize("dtype", [np.float64, np.float32, np.int64, np.bool_, np.complex128])
@pytest.mark.parametrize("case", sorted(CASES))
def test_spelling_is_eager_numpy_in_every_layout(case, dtype):
    fn, spelled = CASES[case]
    if case == "norm" and np.dtype(dtype).kind != "f":
        spelled = None  # only a real float array takes the flat dot product
    f = ag.function(fn, autograph=False)
    for layout, x in _layouts(_values(dtype)).items():
        want, want_warnings = _run(fn, x)
        got, got_warnings = _run(f, x)
        if isinstance(want, type):  # eager raises: the graph raises that type (or, from
            # the trace, a subclass of it naming the user's line)
            assert isinstance(got, type) and issubclass(got, want), layout
            return
        _same(got, want, x)
        assert got_warnings == want_warnings, layout
    if spelled is not None:
        assert spelled in f.get_concrete_function(x).python_code


def test_results_of_graph_values_are_spelled_too():
    """Values the graph computes (fresh or views) take the same spellings."""
    def fn(x):
        y = np.tanh(x)
        return np.transpose(y)[::-1], np.linalg.norm(y[:, 1:]), np.flip(y.T, 0), \
            np.reshape(y.T, (-1,)), np.expand_dims(y[0], -1)
    f = ag.function(fn, autograph=False)
    x = np.random.default_rng(1).standard_normal((3, 5))
    for got, want in zip(f(x), fn(x)):
        _same(got, want, x)
    code = f.get_concrete_function(x).python_code
    assert "np_transpose" not in code and "k_norm" not in code and "np_flip" not in code


def test_norm_with_options_stays_numpys_function():
    def fn(x):
        return np.linalg.norm(x, axis=1), np.linalg.norm(x, ord=1), np.linalg.norm(x, "fro")
    f = ag.function(fn, autograph=False)
    x = np.random.default_rng(2).standard_normal((4, 3))
    for got, want in zip(f(x), fn(x)):
        _same(got, want, x)
    assert "flat_norm" not in f.get_concrete_function(x).python_code


def test_zero_d_values_keep_the_function():
    """A 0-d value may be a Python number when the graph runs: no method is assumed."""
    def fn(x, s):
        t = s * 2
        return np.transpose(t), np.round(x.sum(), 1), np.linalg.norm(t)
    f = ag.function(fn, autograph=False)
    x = np.arange(4.0)
    for s in (np.float64(1.5), np.array(-2.0)):
        got, want = f(x, s), fn(x, s)
        for g, w in zip(got, want):
            assert type(g) is type(w) and np.asarray(g).tobytes() == np.asarray(w).tobytes()


def test_optimized_unoptimized_and_interpreted_graphs_agree_on_spelled_calls():
    def fn(x):
        return np.linalg.norm(np.swapaxes(x, 0, 1) * 2), np.cumsum(np.flip(x, 0), axis=0)
    x = np.random.default_rng(3).standard_normal((3, 4))
    want = fn(x)
    optimized = ag.function(fn, autograph=False)
    unoptimized = ag.function(fn, autograph=False, optimize=False)
    interpreted = run_graph(optimized.get_concrete_function(x).graph, [x])
    for got in (optimized(x), unoptimized(x), interpreted):
        for g, w in zip(got, want):
            _same(g, w, x)


@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (1, 1)])
def test_empty_and_single_element_arrays(shape):
    def fn(x):
        return np.pad(x, ((1, 1), (0, 2))), np.linalg.norm(x), np.flip(x, 1), \
            np.atleast_3d(x), np.reshape(x, (-1,)), np.cumsum(x, axis=0)
    f = ag.function(fn, autograph=False)
    for x in (np.ones(shape), np.asfortranarray(np.ones(shape, np.float32))):
        for got, want in zip(f(x), fn(x)):
            _same(got, want, x)
