"""vmap over a leading batch axis equals a Python loop of calls, bitwise, for the ops of
the three-way op harness (tests/runtime/test_ops*.py) that have batching rules: every
elementwise ufunc, reductions, matmul/dot, shape functions, basic indexing and updates.
No op here may fall back to a per-example loop."""
from __future__ import annotations

import numpy as np
import pytest

from tests.runtime.conftest import make_array
from tests.runtime.test_ops import MATMUL_SHAPES
from tests.runtime.test_ops_ufuncs import BINARY, DOMAIN, UNARY
from tests.runtime.vmap_harness import check_vmap

B = 4


def batch(shape, dtype="float64", kind="any", seed=0):
    return make_array((B,) + tuple(shape), dtype, kind, seed)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
@pytest.mark.parametrize("ufunc", UNARY, ids=lambda u: u.__name__)
def test_unary_ufuncs(ufunc, dtype):
    kind = DOMAIN.get(ufunc.__name__, "any")
    for shape in [(), (3,), (2, 3)]:
        check_vmap(lambda x: ufunc(x), batch(shape, dtype, kind))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("ufunc", BINARY, ids=lambda u: u.__name__)
def test_binary_ufuncs(ufunc, dtype):
    for sx, sy in [((), ()), ((3,), (3,)), ((2, 3), (3,)), ((3,), (2, 3)), ((), (2, 2))]:
        x, y = batch(sx, dtype), batch(sy, dtype, "pos", seed=1)
        check_vmap(lambda x, y: ufunc(x, y), x, y)
        check_vmap(lambda x, y: ufunc(x, y), x, y[0], in_axes=(0, None))
        check_vmap(lambda x, y: ufunc(x, y), x[0], y, in_axes=(None, 0))
    x = batch((3,), dtype)
    for s in (2, 1.5, True):  # Python numbers keep their weak type (NEP 50)
        check_vmap(lambda x: ufunc(x, s), x)
        check_vmap(lambda x: ufunc(s, x), x)


REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.min, np.argmax, np.argmin, np.any, np.all,
              np.std, np.var, np.cumsum, np.cumprod]


@pytest.mark.parametrize("reduce", REDUCTIONS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_reductions(reduce, dtype):
    x = batch((2, 3, 4), dtype)
    for axis in [None, 0, 1, -1]:
        check_vmap(lambda x: reduce(x, axis=axis), x)
    if reduce not in (np.argmax, np.argmin, np.cumsum, np.cumprod):
        for axis in [(0, 2), (-1, 0)]:
            check_vmap(lambda x: reduce(x, axis=axis), x)
        check_vmap(lambda x: reduce(x, axis=1, keepdims=True), x)
    check_vmap(lambda x: reduce(x), batch((5,), dtype))
    check_vmap(lambda x: x.sum() if reduce is np.sum else reduce(x), batch((), dtype))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("fn", [np.matmul, np.dot], ids=lambda f: f.__name__)
def test_matmul_and_dot(fn, dtype):
    for sa, sb in MATMUL_SHAPES:
        if fn is np.dot and (len(sa) > 2 or len(sb) > 2):
            continue
        a, b = batch(sa, dtype), batch(sb, dtype, seed=2)
        check_vmap(lambda a, b: fn(a, b), a, b)
        if len(sb) <= 2:
            check_vmap(lambda a, b: fn(a, b), a, b[0], in_axes=(0, None))
        check_vmap(lambda a, b: fn(a, b), a[0], b, in_axes=(None, 0))
    check_vmap(lambda a, b: a @ b, batch((2, 3)), batch((3,)))


SHAPE_FNS = {
    "reshape": lambda x: x.reshape(4, 3),
    "reshape_infer": lambda x: np.reshape(x, (-1, 2)),
    "ravel_like": lambda x: x.reshape(-1),
    "transpose": lambda x: x.T,
    "transpose_axes": lambda x: np.transpose(x, (1, 0)),
    "swapaxes": lambda x: np.swapaxes(x, 0, -1),
    "moveaxis": lambda x: np.moveaxis(x, 0, 1),
    "expand_dims": lambda x: np.expand_dims(x, -1),
    "expand_dims_tuple": lambda x: np.expand_dims(x, (0, 2)),
    "squeeze": lambda x: np.squeeze(x[:1]),
    "squeeze_axis": lambda x: np.squeeze(x[:, :1], axis=1),
    "concatenate": lambda x: np.concatenate([x, x * 2], axis=1),
    "concatenate_constant": lambda x: np.concatenate([x, np.ones((1, 4))], axis=0),
    "stack": lambda x: np.stack([x, x + 1], axis=-1),
    "stack_constant": lambda x: np.stack([x, np.zeros((3, 4))]),
    "index_int": lambda x: x[1],
    "index_scalar": lambda x: x[1, 2],
    "index_slices": lambda x: x[1:, ::2],
    "index_none_ellipsis": lambda x: x[None, ..., -1],
    "where": lambda x: np.where(x > 0, x, -x * 2),
    "where_constant": lambda x: np.where(x > 0, 1.0, x),
    "clip": lambda x: np.clip(x, -0.5, 0.5),
    "astype": lambda x: x.astype(np.float32),
    "zeros_like": lambda x: np.zeros_like(x) + np.ones_like(x[0]),
}


@pytest.mark.parametrize("name", sorted(SHAPE_FNS))
def test_shape_functions_and_indexing(name):
    check_vmap(SHAPE_FNS[name], batch((3, 4)))


def set_row(x, v):
    y = x.copy()
    y[1] = v
    return y


def add_into_slice(x, v):
    y = x * 1.0
    y[:, 1:3] += v
    return y


def test_index_updates():
    x = batch((3, 4))
    check_vmap(set_row, x, batch((4,), seed=3))
    check_vmap(set_row, x, batch((), seed=3))
    check_vmap(set_row, x, make_array((4,)), in_axes=(0, None))
    check_vmap(set_row, x[0], batch((4,)), in_axes=(None, 0))
    check_vmap(add_into_slice, x, batch((3, 2), seed=4))


def test_scalar_index_from_a_loop_counter_and_mixed_programs():
    def program(x, w):
        h = np.tanh(x @ w + 0.5)
        s = np.sum(h, axis=-1, keepdims=True)
        return (h / s).T.reshape(-1)[::2], np.argmax(h, axis=1)
    check_vmap(program, batch((2, 3)), make_array((3, 4), seed=5), in_axes=(0, None))
