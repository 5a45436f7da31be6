"""Unknown dimensions, and the errors/warnings for what graphs cannot do.

Unknown dims: one trace for `TensorSpec((None, 3))` runs on inputs of several sizes;
conftest's `check_spec` compares each run with eager NumPy and checks that every node's
static shape fits the real one (None where unknown).
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import autograph as ag
import runtime

SIZES = (1, 3, 6)
W = np.arange(12, dtype=np.float32).reshape(3, 4) / 7

UNKNOWN_ROWS = {
    "add_scalar": lambda x: x + 1,
    "mul_self": lambda x: x * x,
    "exp": lambda x: np.exp(x),
    "broadcast_column": lambda x: x - x[:, :1],
    "broadcast_const": lambda x: x + np.ones(3, np.float32),
    "maximum": lambda x: np.maximum(x, 0),
    "compare": lambda x: x > 0.5,
    "divmod": lambda x: np.divmod(x, 0.3),
    "first_row": lambda x: x[0],
    "last_row": lambda x: x[-1],
    "rows_from_1": lambda x: x[1:],
    "column": lambda x: x[:, 0],
    "every_other": lambda x: x[::2],
    "reversed": lambda x: x[::-1, 1],
    "newaxis": lambda x: x[None, ..., None],
    "mask": lambda x: x[x > 0.5],
    "row_mask": lambda x: x[x[:, 0] > 0.5, 1:],
    "take_rows": lambda x: x[np.array([0, 0])],
    "sum": lambda x: x.sum(),
    "sum_rows": lambda x: x.sum(0),
    "sum_cols": lambda x: np.sum(x, axis=-1, keepdims=True),
    "mean_keep": lambda x: x.mean(axis=0, keepdims=True),
    "argmax": lambda x: x.argmax(0),
    "std": lambda x: np.std(x, 1),
    "max_all": lambda x: x.max(axis=(0, 1)),
    "any": lambda x: np.any(x > 1, axis=1),
    "matmul": lambda x: x @ W,
    "gram": lambda x: x.T @ x,
    "outer_gram": lambda x: x @ x.T,
    "dot": lambda x: np.dot(x, W[:, 0]),
    "einsum": lambda x: np.einsum("ij,jk->ik", x, W),
    "einsum_trace": lambda x: np.einsum("ij,ij->i", x, x),
    "tensordot": lambda x: np.tensordot(x, W, axes=1),
    "reshape_flat": lambda x: x.reshape(-1),
    "reshape_col": lambda x: np.reshape(x, (-1, 1)),
    "transpose": lambda x: x.T,
    "expand_dims": lambda x: np.expand_dims(x, 1),
    "squeeze": lambda x: np.squeeze(x[:, :1], 1),
    "concat_rows": lambda x: np.concatenate([x, x[:1]]),
    "concat_cols": lambda x: np.concatenate([x, x], axis=1),
    "stack": lambda x: np.stack([x, x], axis=1),
    "take": lambda x: np.take(x, [0, 2], axis=1),
    "cumsum": lambda x: np.cumsum(x, axis=0),
    "where": lambda x: np.where(x > 0.5, x, 0.0),
    "clip": lambda x: np.clip(x, 0.2, 0.8),
    "zeros_like": lambda x: np.zeros_like(x),
    "full_like": lambda x: np.full_like(x, 2, dtype=np.int32),
    "astype": lambda x: x.astype(np.int64),
    "transpose_tuple": lambda x: np.transpose(x[None], (1, 0, 2)),
}


@pytest.mark.parametrize("name", list(UNKNOWN_ROWS))
def test_unknown_leading_dim(check_spec, arr, name):
    args = [(arr((n, 3), "float32", "pos"),) for n in SIZES]
    check_spec(UNKNOWN_ROWS[name], [ag.TensorSpec((None, 3), np.float32)], *args)


TWO_UNKNOWN = {
    "outer": lambda x, y: x[:, None] * y[None, :],
    "broadcast": lambda x, y: x + y,
    "concat": lambda x, y: np.concatenate([x, y]),
    "matmul": lambda x, y: x @ y,
    "where": lambda x, y: np.where(x > y, x, y),
}


@pytest.mark.parametrize("name", list(TWO_UNKNOWN))
def test_two_unknown_dims(check_spec, arr, name):
    fn = TWO_UNKNOWN[name]
    spec = ag.TensorSpec((None,), np.float64)
    check_spec(fn, [spec, spec], *[(arr((n,), "float64"), arr((n,), "float64", "pos"))
                                   for n in SIZES])


def test_unknown_dims_in_static_shapes(arr):
    f = runtime.function(lambda x: (x @ W, x.sum(1), x[1:, :2], x.reshape(-1)))
    cf = f.get_concrete_function(ag.TensorSpec((None, 3), np.float32))
    assert [t.shape for t in cf.graph.outputs] == [(None, 4), (None,), (None, 2), (None,)]


# -- errors and warnings ------------------------------------------------------------------
UNSUPPORTED = {
    "np.linalg.eig": lambda x: np.linalg.eig(x),
    "np.linalg.tensorinv": lambda x: np.linalg.tensorinv(x, ind=1),
}


@pytest.mark.parametrize("name", list(UNSUPPORTED))
def test_unsupported_function_raises_type_error(arr, name):
    f = runtime.function(UNSUPPORTED[name])
    with pytest.raises(TypeError, match=re.escape(name) + r"\b.*not supported in graphs"):
        f(arr((3, 3), "float32"))


def test_one_argument_where_is_nonzero(arr):
    # (a tuple of index arrays whose length is known when the graph runs)
    x = arr((3,), "float32")
    got = runtime.function(lambda x: np.where(x > 0))(x)
    want = np.where(x > 0)
    assert type(got) is tuple and len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and np.array_equal(g, w)


@pytest.mark.parametrize("fn", [
    lambda x: np.random.rand() * x,
    lambda x: x + np.random.normal(size=x.shape),
    lambda x: np.random.permutation(3) * x,
], ids=["rand", "normal", "permutation"])
def test_numpy_random_while_tracing_warns(arr, fn):
    f = runtime.function(fn)
    x = arr((3,), "float32")
    with pytest.warns(UserWarning, match="np.random"):
        first = f(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a cached call does not trace or warn again
        np.testing.assert_array_equal(f(x), first)  # ... and reuses the frozen values


def test_random_generator_while_tracing_warns(arr):
    rng = np.random.default_rng(0)
    with pytest.warns(UserWarning, match="random"):
        runtime.function(lambda x: x + rng.normal())(arr((3,), "float32"))


def test_no_random_warning_without_random(arr):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        runtime.function(lambda x: x * 2)(arr((3,), "float32"))


@pytest.mark.parametrize("fn", [
    lambda x, buf: np.add(x, 1, out=buf),
    lambda x, buf: np.exp(x, out=(buf,)),
], ids=["add", "exp_tuple"])
def test_ufunc_out_an_array_of_python_state_is_written_as_numpy_writes_it(fn):
    # `buf` is a closure's array: the trace reads it as an input and every call writes
    # the result into it, in place
    x = np.arange(3, dtype=np.float32)
    eager_buf, graph_buf = np.zeros(3, np.float32), np.zeros(3, np.float32)
    fn(x, eager_buf)
    f = runtime.function(lambda x: fn(x, graph_buf))
    f(x)
    np.testing.assert_array_equal(graph_buf, eager_buf)
    graph_buf[:] = 0
    f(x + 1)
    np.testing.assert_array_equal(graph_buf, fn(x + 1, np.zeros(3, np.float32)))


@pytest.mark.parametrize("fn", [
    lambda x, buf: np.divmod(x, 2, out=(buf, buf)),
    lambda x, buf: np.sum(x, out=buf[0]),
    lambda x, buf: np.cumsum(x, out=buf),
], ids=["divmod", "sum", "cumsum"])  # (out= a symbolic array: it is
# written in place, tests/autograph/test_fidelity_view_writes.py)
def test_out_argument_raises_type_error(arr, fn):
    x = arr((3,), "float32")
    buf = np.zeros(3, np.float32)
    with pytest.raises(TypeError, match=r"out=.*(not supported in graphs|writes a value "
                                        r"computed in the graph into a NumPy array)"):
        runtime.function(lambda x: fn(x, buf))(x)
    np.testing.assert_array_equal(buf, 0)


def test_where_argument_on_ufunc_raises_type_error(arr):
    with pytest.raises(TypeError, match=r"where=.*not supported in graphs"):
        runtime.function(lambda x: np.add(x, 1, where=x > 0))(arr((3,), "float32"))
