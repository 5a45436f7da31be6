"""Constant materialization and spare buffers: faster kernels, bitwise the same results.

Every case runs three ways — eager NumPy, the optimized graph, the unoptimized graph —
and must agree in value (bitwise), dtype, shape and in the warnings or errors raised.
"""
import ast
import re
import warnings

import numpy as np
import pytest

import autograph as ag
from runtime.passes.materialize import MAX_BROADCAST_ELEMENTS
from tests.helpers import assert_same

UFUNCS = [np.add, np.subtract, np.multiply, np.true_divide, np.floor_divide, np.power,
          np.maximum, np.fmin, np.arctan2, np.ldexp, np.logical_and, np.bitwise_xor,
          np.left_shift, np.less, np.equal, np.copysign, np.hypot]
DTYPES = [np.bool_, np.int8, np.uint8, np.int32, np.int64, np.float16, np.float32,
          np.float64, np.complex64]
SCALARS = [True, 3, -2, 2.5, 1e300, float("nan"), -0.0, 1j, 2**40,
           np.float32(2.5), np.int8(3), np.float64(-0.0), np.uint16(7)]


def outcome(fn, *args):
    """(result or exception type, warning categories) of one call."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with np.errstate(all="warn"):
            try:
                result = fn(*args)
            except Exception as e:  # noqa: BLE001 - compared, not hidden
                result = type(e)
    return result, sorted({w.category.__name__ for w in caught})


def out_buffers(code: str) -> list[tuple[int, str]]:
    """(line, name) of every buffer the executor writes into: the argument after a ufunc's
    inputs (or np.dot's two), passed by position."""
    found = []
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id.startswith("np_"):
            kernel = getattr(np, node.func.id[3:])
            n_in = kernel.nin if isinstance(kernel, np.ufunc) else 2
            if len(node.args) > n_in:
                found.append((node.lineno, node.args[n_in].id))
    return found


def bitwise(got, want):
    g, w = np.asarray(got), np.asarray(want)
    assert (g.dtype, g.shape) == (w.dtype, w.shape)
    assert g.tobytes() == w.tobytes(), (g, w)  # -0.0 vs 0.0 would differ here


def same_outcome(got, want, warnings_too=True):
    (g, gw), (w, ww) = got, want
    assert gw == ww or not warnings_too
    if isinstance(w, type):
        assert g is w
    else:
        bitwise(g, w)


@pytest.mark.parametrize("scalar_input", [False, True], ids=["array", "scalar"])
@pytest.mark.parametrize("ufunc", UFUNCS, ids=lambda u: u.__name__)
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_scalar_constants_bitwise_against_eager(ufunc, dtype, scalar_input):
    x = (np.arange(6).reshape(2, 3) - 2).astype(dtype)
    x = x[0, 1] if scalar_input else x  # a NumPy scalar: NumPy's scalar math runs
    for s in SCALARS:
        for fn in (lambda x: ufunc(x, s), lambda x: ufunc(s, x)):
            want = outcome(fn, x)
            if isinstance(want[0], type):
                continue  # eager rejects it: tracing reports that (tested elsewhere)
            fast = ag.function(fn, autograph=False)
            plain = ag.function(fn, autograph=False, optimize=False)
            outcome(fast, x)  # the first call traces (and warns while tracing)
            outcome(plain, x)
            # On NumPy scalars the executor spells ufuncs as operators (NumPy's scalar
            # math, much faster), which warns on integer overflow where np.add does not:
            # there, warnings are compared between the optimized and plain graphs only.
            same_outcome(outcome(fast, x), want, warnings_too=not scalar_input)
            same_outcome(outcome(plain, x), want, warnings_too=not scalar_input)
            same_outcome(outcome(fast, x), outcome(plain, x))


def test_scalars_become_0d_arrays_of_the_loop_dtype():
    f = ag.function(lambda x: x * 2.5 + np.float32(1) - 3, autograph=False)
    x = np.ones((1, 4), np.float32)
    cf = f.get_concrete_function(x)
    consts = [v for n in cf.optimized_graph.nodes for v in n.inputs if not hasattr(v, "graph")]
    assert all(isinstance(c, np.ndarray) and c.shape == () and c.dtype == np.float32
               for c in consts) and len(consts) == 3
    assert_same(f(x), x * 2.5 + np.float32(1) - 3, rtol=0)


def test_scalars_on_scalar_values_become_numpy_scalars():
    f = ag.function(lambda n: n * 3 + 1 > 2**40, autograph=False)
    cf = f.get_concrete_function(np.int32(5))
    consts = [v for n in cf.optimized_graph.nodes for v in n.inputs if not hasattr(v, "graph")]
    assert [type(c) for c in consts] == [np.int32, np.int32, int]  # 2**40 does not fit
    assert "int32_3" in cf.python_code and "int32_1" in cf.python_code
    for n in (np.int32(5), np.int32(2**31 - 1)):  # the second overflows: warns, wraps
        assert outcome(f, n) == outcome(lambda n: n * 3 + 1 > 2**40, n)


def test_overflowing_scalar_cast_is_left_to_numpy():
    f = ag.function(lambda x: x * 1e300, autograph=False)
    x = np.ones(3, np.float32)
    cf = f.get_concrete_function(x)
    assert [type(v) for v in cf.optimized_graph.nodes[0].inputs][1] is float
    with pytest.warns(RuntimeWarning, match="overflow"):
        assert_same(f(x), np.full(3, np.inf, np.float32), rtol=0)


class Dense:
    def __init__(self, n, rng):
        self.w = rng.standard_normal((n, n)).astype(np.float32)
        self.b = rng.standard_normal(n).astype(np.float32)

    def __call__(self, x):
        return np.tanh(x @ self.w + self.b)


@pytest.mark.parametrize("batch", [1, 3, 200])
def test_bias_is_broadcast_once_and_results_are_bitwise_eager(batch):
    rng = np.random.default_rng(batch)
    layers = [Dense(8, rng) for _ in range(4)]

    def model(x):
        for layer in layers:
            x = layer(x)
        return x
    x = rng.standard_normal((batch, 8)).astype(np.float32)
    f = ag.function(model)
    assert_same(f(x), model(x), rtol=0)
    assert_same(f(x), ag.function(model, optimize=False)(x), rtol=0)
    adds = [n for n in f.get_concrete_function(x).optimized_graph.nodes if n.op.name == "add"]
    bias = adds[0].inputs[1]
    assert bias.dtype == np.float32 and not bias.flags.writeable
    if batch == 1:
        assert bias.shape == (1, 8) and bias.base is not None  # a view: no copy needed
    elif batch * 8 <= MAX_BROADCAST_ELEMENTS:
        assert bias.shape == (batch, 8)
    else:
        assert bias.shape == (8,)


def test_large_constants_are_not_copied_to_the_result_shape():
    b = np.arange(100.0)
    f = ag.function(lambda x: x + b, autograph=False)
    x = np.ones((1000, 100))
    cf = f.get_concrete_function(x)
    assert cf.optimized_graph.nodes[0].inputs[1].shape == (100,)
    assert_same(f(x), x + b, rtol=0)


def test_dense_chain_writes_matmuls_into_spare_buffers():
    rng = np.random.default_rng(0)
    layers = [Dense(4, rng) for _ in range(3)]

    def model(x):
        for layer in layers:
            x = layer(x)
        return x
    x = rng.standard_normal((1, 4)).astype(np.float32)
    f = ag.function(model)
    code = f.get_concrete_function(x).python_code
    lines = code.splitlines()
    # the first operand is an argument (any layout): `@`; the others are ufunc results (spelling.py)
    dots = [line for line in lines if ".dot(" in line or " @ " in line]
    assert len(dots) == 3 and " @ " in dots[0], code
    assert re.search(r"= (\w+)\.dot\(\w+, \w+\)", dots[2]), code  # `a.dot(b, out)`
    assert "np_add(v1, c_2, v1)" in code
    assert_same(f(x), model(x), rtol=0)
    assert f(x) is not f(x)  # every call returns its own array


def test_a_buffer_seen_through_a_view_is_never_spare():
    def fn(x):
        y = x * 2.0
        v = y[::-1]          # a view of y's buffer outlives y's last ufunc use
        z = np.exp(y)        # y's last use
        w = z * 3.0          # could write into y's buffer if it were spare: it is not
        return v, z, w
    x = np.arange(6.0).reshape(2, 3)
    f = ag.function(fn)
    assert_same(f(x), fn(x), rtol=0)
    assert out_buffers(f.get_concrete_function(x).python_code) == []


def test_a_dead_buffer_of_the_same_shape_takes_a_later_result():
    def fn(x):
        y = x * 2.0
        z = np.exp(x)
        m = y > 1.0          # y's last use (a bool result cannot go in its buffer)
        w = z * 3.0          # writes into y's buffer (z stays alive: it is returned)
        return z, m, w
    x = np.arange(6.0).reshape(2, 3)
    f = ag.function(fn)
    assert_same(f(x), fn(x), rtol=0)
    code = f.get_concrete_function(x).python_code
    y_name = code.splitlines()[2].split()[0]  # (line 1 checks for a recording tape)
    assert out_buffers(code) == [(len(code.splitlines()) - 1, y_name)], code


ROW = np.arange(4.0)


def read_in_memory_order(x, y):
    d = np.exp(y)            # fresh and C-ordered; dies below: a spare buffer
    m = d > 0.5
    e = np.sin(x) + ROW      # x is F-ordered: eagerly, so is e
    return np.ravel(e, order="K"), e.reshape(16, order="A"), m


def test_functions_reading_memory_order_keep_eager_layouts():
    x = np.asfortranarray(np.arange(16.0).reshape(4, 4) / 7)
    y = np.arange(16.0).reshape(4, 4) / 5
    want = read_in_memory_order(x, y)
    for optimize in (True, False):
        got = ag.function(read_in_memory_order, optimize=optimize)(x, y)
        for g, w in zip(got, want):
            bitwise(g, w)
    code = ag.function(read_in_memory_order).get_concrete_function(x, y).python_code
    assert out_buffers(code) == []  # no buffer reuse where layouts can be read


def test_object_arrays_keep_python_numbers():
    x = np.array([2**62, 3], dtype=object)
    for fn in (lambda x: x * np.int64(4), lambda x: x * 4 + 1):
        got, want = ag.function(fn, autograph=False)(x), fn(x)
        assert got.dtype == object and list(got) == list(want)
        assert [type(v) for v in got] == [type(v) for v in want]


def spares_in_a_loop_body(x, n):
    i = 0
    while i < n:  # symbolic: each iteration's dead buffers are reused inside the body
        y = np.exp(x) * 0.5
        z = np.sin(y)
        m = y > 0.7          # y dies: its buffer is spare for w
        w = np.cos(z) * 2.0
        x = np.where(m, w, z) + x * 0.1
        i += 1
    return x


def spares_in_branches(x, p):
    y = np.tanh(x) * 3.0
    if p > 0:                # symbolic: each branch has its own buffer plan
        t = y * y
        s = t > 1.0
        x = np.exp(-t) * 2.0 + np.where(s, 1.0, 0.0)
    else:
        x = y + 1.0
    return x, y


def test_spare_buffers_inside_loop_bodies_and_branches():
    x = np.linspace(-1.0, 1.0, 12).reshape(3, 4)
    for n in (0, 1, 5):
        bitwise(ag.function(spares_in_a_loop_body)(x, np.int64(n)),
                spares_in_a_loop_body(x, n))
    for p in (1.0, -1.0):
        got, want = ag.function(spares_in_branches)(x, np.float64(p)), spares_in_branches(x, p)
        bitwise(got[0], want[0])
        bitwise(got[1], want[1])
    code = ag.function(spares_in_a_loop_body).get_concrete_function(x, np.int64(1)).python_code
    assert out_buffers(code), code  # the loop body does write into buffers


def test_results_of_sorts_and_scans_are_fresh_buffers_a_ufunc_may_write_into():
    """np.sort / argsort / cumsum / cumprod return new arrays nobody else sees: a ufunc that
    is their last reader writes into them (no fresh 8 MB result after two 1M sorts)."""
    def fn(a, b):
        s = np.sort(a) + np.sort(b)
        c = np.cumsum(a, axis=0) * 2.0
        k = np.argsort(b, axis=0) + 1
        return s, c, k, np.cumprod(a, axis=0) - 1.0
    a = np.random.default_rng(0).standard_normal((5, 3))
    b = a[::-1] * 3.0
    f = ag.function(fn)
    assert_same(f(a, b), fn(a, b), rtol=0)
    code = f.get_concrete_function(a, b).python_code
    assert len(out_buffers(code)) == 4, code
    assert_same(f(a, b), fn(a, b), rtol=0)  # a second call: nothing carried over
