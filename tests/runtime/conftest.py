"""Shared fixtures for the differential op tests (`test_ops*.py`).

`check(fn, *args)` runs `fn` three ways and compares them in value, dtype and shape:
eager NumPy, the generated code of `runtime.function(fn)`, and the reference
interpreter `run_graph` on the same graph. It also runs the verifier and re-executes
the live nodes one by one, asserting that each node's static shape/dtype fits the value
its kernel actually produced. When eager NumPy raises, the graph must raise the same
exception type (at trace or at run time). Tracing must not emit warnings.

`check_spec(fn, specs, *arg_sets)` traces once for `TensorSpec`s (dims may be None) and
runs that one trace on several inputs with the same checks.

`arr(shape, dtype, kind)` makes deterministic sample arrays: kind "any" (mixed signs),
"pos" (positive, never zero: safe divisors, shift counts and exponents) or "unit"
(inside (-1, 1), for arcsin & co.).
"""
from __future__ import annotations

import warnings
import zlib

import numpy as np
import pytest

import runtime
from runtime.exec.interpreter import run_graph
from runtime.core.liveness import live_nodes
from runtime.frontend.signature import has_aliases, key_of, mark_aliases
from runtime.core.structure import flatten
from runtime.core.tensor import Tensor


def make_array(shape=(), dtype=np.float64, kind="any", seed=0):
    shape = tuple(shape)
    dtype = np.dtype(dtype)
    rng = np.random.default_rng(zlib.crc32(repr((shape, dtype.str, kind, seed)).encode()))
    if dtype.kind == "b":
        values = rng.random(shape) < 0.5
    elif dtype.kind in "iu":
        lo, hi = {"any": (-4, 6), "pos": (1, 5), "unit": (0, 2)}[kind]
        if dtype.kind == "u":
            lo = max(lo, 0 if kind != "pos" else 1)
        values = rng.integers(lo, hi, shape)
    else:
        lo, hi = {"any": (-2.0, 2.0), "pos": (0.25, 2.0), "unit": (-0.9, 0.9)}[kind]
        values = rng.uniform(lo, hi, shape)
    return np.asarray(values, dtype=dtype)


def _is_float(x) -> bool:
    return np.asarray(x).dtype.kind in "fc"


def assert_same(actual, expected, what: str, rtol=1e-6, atol=0.0, exact=True) -> None:
    """Value, dtype, shape, and array-vs-NumPy-scalar kind of `actual` equal `expected`."""
    a, e = np.asarray(actual), np.asarray(expected)
    assert a.dtype == e.dtype, f"{what}: dtype {a.dtype}, eager NumPy gives {e.dtype}"
    assert a.shape == e.shape, f"{what}: shape {a.shape}, eager NumPy gives {e.shape}"
    assert isinstance(actual, np.ndarray) == isinstance(expected, np.ndarray), (
        f"{what}: returned {type(actual).__name__}, eager NumPy gives {type(expected).__name__}")
    if _is_float(e):
        np.testing.assert_allclose(a, e, rtol=rtol, atol=atol, err_msg=what)
        if exact:  # the same NumPy kernels run, so results are bit-identical
            np.testing.assert_array_equal(a, e, err_msg=f"{what} (exact)")
    else:
        np.testing.assert_array_equal(a, e, err_msg=what)


def assert_fits(t: Tensor, value, what: str) -> None:
    """The static shape/dtype of graph value `t` is compatible with the real `value`."""
    v = np.asarray(value)
    assert v.dtype == t.dtype, f"{what}: static dtype {t.dtype}, runs as {v.dtype}"
    ok = len(v.shape) == len(t.shape) and all(
        s is None or s == d for s, d in zip(t.shape, v.shape, strict=True))
    assert ok, f"{what}: static shape {t.shape} does not fit the real shape {v.shape}"


def check_static(graph, leaves) -> None:
    """Run the live nodes one by one and check each output against its static aval."""
    env = {}
    for t, v in zip(graph.inputs, leaves, strict=True):
        assert_fits(t, v, f"input {t.name}")
        env[id(t)] = v
    for node in live_nodes(graph):
        if node.subgraphs():
            return  # control flow is covered by its own tests; run_graph checks values
        ins = [env[id(x)] if isinstance(x, Tensor) else x for x in node.inputs]
        result = node.op.kernel(*ins, **node.attrs)
        outs = [result] if node.op.num_outputs == 1 else list(result)
        for t, v in zip(node.outputs, outs, strict=True):
            assert_fits(t, v, f"node {node!r}")
            env[id(t)] = v


def _compare_all(cf, args, expected, got, what, **tol) -> None:
    leaves: list = []
    key = tuple(key_of(a, leaves) for a in args)
    if has_aliases(leaves):  # one array passed twice is one graph input
        _, leaves = mark_aliases(key, leaves)
    interp = run_graph(cf.graph, leaves)
    interp = interp[:len(interp) - len(cf.writeback)]  # then the written arguments' values
    check_static(cf.graph, leaves)
    exp_leaves, exp_tree = flatten(expected)
    got_leaves, got_tree = flatten(got)
    assert got_tree == exp_tree, f"{what}: output structure {got_tree}, eager gives {exp_tree}"
    assert len(interp) == len(exp_leaves), "every output should depend on an input"
    for i, (e, g, r) in enumerate(zip(exp_leaves, got_leaves, interp, strict=True)):
        assert_same(g, e, f"{what} output {i} (generated code)", **tol)
        assert_same(r, e, f"{what} output {i} (interpreter)", **tol)
    for t, e in zip(cf.graph.outputs[:len(exp_leaves)], exp_leaves, strict=True):
        assert_fits(t, e, f"{what} graph output {t.name}")


def _copies(args) -> list:
    """Copies of the argument arrays; an array passed twice stays one (shared) copy."""
    made: dict = {}
    return [made.setdefault(id(a), a.copy()) for a in args]


def run_check(fn, *args, rtol=1e-6, atol=0.0, exact=True):
    """Eager NumPy vs generated code vs interpreter; returns the ConcreteFunction."""
    tol = dict(rtol=rtol, atol=atol, exact=exact)
    with np.errstate(all="ignore"):
        try:
            eager_args = _copies(args)  # eager code may update in place
            expected = fn(*eager_args)
        except Exception as error:
            with pytest.raises(type(error)):
                runtime.function(fn)(*args)
            return None
        f = runtime.function(fn)
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # tracing itself must not warn
            cf = f.get_concrete_function(*args)
        graph_args = _copies(args)
        got = f(*graph_args)
        # the arguments end as eager's do: written into only where the NumPy code does
        for a, b in zip(graph_args, eager_args, strict=True):
            np.testing.assert_array_equal(a, b, err_msg="an argument's state after the call")
        again = f(*_copies(args))  # buffers are not shared between calls
        cf.graph.verify()
        assert f.tracing_count == 1
        name = getattr(fn, "__name__", "fn")
        _compare_all(cf, args, expected, got, name, **tol)
        for e, g in zip(flatten(expected)[0], flatten(again)[0], strict=True):
            assert_same(g, e, f"{name} (second call)", **tol)
    return cf


def run_check_spec(fn, specs, *arg_sets, **tol):
    """Trace once for `specs` (TensorSpecs, None dims allowed), run on each arg set."""
    f = runtime.function(fn)
    cf = f.get_concrete_function(*specs)
    cf.graph.verify()
    for t, spec in zip(cf.graph.inputs, specs, strict=True):
        assert t.shape == spec.shape
    with np.errstate(all="ignore"):
        for args in arg_sets:
            expected = fn(*args)
            got = cf(*args)
            _compare_all(cf, args, expected, got, f"{fn.__name__}{[np.shape(a) for a in args]}",
                         **tol)
    assert f.tracing_count == 1
    return cf


@pytest.fixture
def check():
    return run_check


@pytest.fixture
def check_spec():
    return run_check_spec


@pytest.fixture
def arr():
    return make_array


@pytest.fixture
def small_jit_regions(monkeypatch):
    """Array regions of any size are compiled (by default only large ones are: below that
    NumPy's own calls are faster), so small test arrays exercise the lowering."""
    from runtime.jit import regions

    monkeypatch.setattr(regions, "MIN_ARRAY_ELEMENTS", 0)

