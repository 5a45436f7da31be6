"""The executor and passes on unknown dims: buffers are reused only where the shapes are
provably equal when the graph runs, and every call - whatever the sizes - equals eager
NumPy and the reference interpreter."""
from __future__ import annotations

import re

import numpy as np
import pytest

import autograph as ag
from tests.helpers import assert_interpreter_agrees, assert_same

SIG = [ag.TensorSpec((None,), np.float64), ag.TensorSpec((None,), np.float64)]


def chain(x, y):
    a = np.exp(x) * 2.0          # a 0-d operand: `a` has x's shape, its buffer is reused
    a = np.tanh(a) + 1
    b = a * y                    # y may broadcast (length 1): no reuse of a's buffer
    c = b - np.float64(3)
    return c, np.sum(c * c), a


def run_sizes(fn, sizes):
    f = ag.function(fn, input_signature=SIG)
    cf = f.get_concrete_function(*SIG)
    cf.graph.verify()
    for n, m in sizes:
        args = (np.linspace(0, 1, n), np.linspace(1, 2, m))
        expected = fn(*args)
        got = f(*args)
        assert_same(got, expected)
        assert_interpreter_agrees(cf, args, got)
    return cf


def test_reuse_only_where_the_run_time_shapes_are_provably_equal():
    cf = run_sizes(chain, [(4, 4), (4, 1), (1, 5), (0, 1), (0, 0), (6, 6)])
    code = cf.python_code
    assert re.search(r"multiply\((\w+), 2\.0, \1\)", code), code  # into its own buffer
    b_line = next(line for line in code.splitlines()[1:] if re.search(r"\* y\b|, y\b", line))
    assert re.match(r"\s*\w+ = ", b_line), code  # a new array, not written into `a`'s buffer


def loop_over_unknown_sizes(x, y):
    total = np.zeros_like(x)
    i = 0
    while i < y.shape[0]:
        total = total + x * y[i]
        total = np.sqrt(np.abs(total))
        i += 1
    return total, total.shape[0] + y.shape[0]


def test_loops_and_hoisting_with_unknown_dims():
    run_sizes(loop_over_unknown_sizes, [(3, 2), (0, 3), (5, 0), (1, 1)])


def folded_and_shared(x, y):
    k = np.ones(3) * 2.0                  # folded: a constant of known shape
    n = x.shape[0]
    u = x * n + np.sum(k)
    v = x * n + np.sum(k)                 # the same expression: computed once
    return u + v, np.zeros(n) + y[:1].sum()


def test_folding_and_cse_with_symbolic_dims():
    run_sizes(folded_and_shared, [(3, 2), (0, 1), (4, 5)])


def symbolic_dims_exported(x, y):
    n = x.shape[0]
    return x * n + y.size, np.float32(2) ** (n % 3), np.size(x, 0) * 2


def test_symbolic_dims_export_to_onnx_and_save():
    pytest.importorskip("onnxruntime")
    from tests.onnx_harness import check_export

    sig = [ag.TensorSpec((None,), np.float32), ag.TensorSpec((2, None), np.float64)]
    f = ag.function(symbolic_dims_exported, input_signature=sig)
    cf = f.get_concrete_function(*sig)
    assert {"shape_dim", "size_of", "python_number"} <= {n.op.name for n in cf.graph.walk()}
    for n, m in ((3, 2), (0, 5), (4, 0)):
        args = (np.arange(n, dtype=np.float32), np.ones((2, m)))
        check_export(cf, args)


def test_symbolic_dims_round_trip_through_save(tmp_path):
    sig = [ag.TensorSpec((None,), np.float32), ag.TensorSpec((2, None), np.float64)]
    f = ag.function(symbolic_dims_exported, input_signature=sig)
    f.get_concrete_function(*sig)
    ag.save(f, str(tmp_path / "fn"))
    loaded = ag.load(str(tmp_path / "fn"))
    for n, m in ((3, 2), (0, 5)):
        args = (np.arange(n, dtype=np.float32), np.ones((2, m)))
        assert_same(loaded(*args), symbolic_dims_exported(*args))


def data_dependent_saved(x, y):
    n = x.shape[0]
    m = x[x > 1]
    return (np.zeros(n + 1, np.int32), np.arange(m.size), np.nonzero(x > 1), np.unique(x),
            np.unique(x, return_counts=True), np.bincount(np.arange(n) % 2), x.reshape(n, -1),
            np.repeat(x, n), np.tile(x, n), np.pad(x, n), np.broadcast_to(x, (2, n)),
            np.linspace(0, 1, n), np.eye(n), np.full(n, y[0, 0]), tuple(np.unique_all(x)))


def test_data_dependent_ops_round_trip_through_save(tmp_path):
    sig = [ag.TensorSpec((None,), np.float32), ag.TensorSpec((2, None), np.float64)]
    f = ag.function(data_dependent_saved, input_signature=sig)
    f.get_concrete_function(*sig)
    ag.save(f, str(tmp_path / "fn"))
    loaded = ag.load(str(tmp_path / "fn"))
    for n in (3, 1, 4):
        args = (np.arange(n, dtype=np.float32) % 3, np.ones((2, 2)))
        assert_same(loaded(*args), data_dependent_saved(*args))
