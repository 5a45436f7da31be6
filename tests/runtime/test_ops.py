"""Differential tests of NumPy functions in graphs: reductions, linear algebra, shape
manipulation, selection, array creation, cumulative ops and the Tensor methods.

Every case runs eager NumPy, the generated code and the interpreter and compares value,
dtype and shape (conftest.py); if NumPy raises, the graph raises the same type.
Ufuncs/operators: test_ops_ufuncs.py; indexing: test_ops_indexing.py; unknown dims and
errors: test_ops_shapes.py.
"""
from __future__ import annotations

import numpy as np
import pytest

DTYPES = ["float32", "float64", "int32", "int64", "bool"]
NUMERIC = ["float32", "float64", "int32", "int64"]

# -- reductions ---------------------------------------------------------------------------
REDUCTIONS = [np.sum, np.mean, np.prod, np.max, np.min, np.argmax, np.argmin, np.any, np.all,
              np.std, np.var, np.amax, np.amin, np.nansum, np.nanmean, np.nanmax, np.nanmin]
AXES = [None, 0, 1, -1, (0, 2), (-1, 0), (), (0, 1, 2)]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduce", REDUCTIONS, ids=lambda f: f.__name__)
def test_reduction_axes(check, arr, reduce, dtype):
    x = arr((2, 3, 4), dtype)
    for axis in AXES:  # argmax/argmin with a tuple axis: NumPy raises TypeError, so must we
        for keepdims in (False, True):
            check(lambda x: reduce(x, axis=axis, keepdims=keepdims), x)
    check(lambda x: reduce(x), arr((), dtype))
    check(lambda x: reduce(x, 0), arr((5,), dtype))
    check(lambda x: reduce(x, axis=3), x)  # AxisError like NumPy


@pytest.mark.parametrize("dtype", NUMERIC)
def test_reduction_options(check, arr, dtype):
    x = arr((3, 4), dtype)
    check(lambda x: np.sum(x, axis=0, dtype=np.float64), x)
    check(lambda x: np.sum(x, dtype=np.int8), x)
    check(lambda x: np.prod(x, axis=1, dtype=np.float32), x)
    check(lambda x: np.mean(x, axis=-1, dtype=np.float32), x)
    check(lambda x: np.std(x, axis=0, ddof=1), x)
    check(lambda x: np.var(x, ddof=1, keepdims=True), x)
    check(lambda x: np.sum(x, axis=1, initial=10), x)
    check(lambda x: np.max(x, axis=0, initial=3), x)
    check(lambda x: np.sum(x, where=np.array([True, False, True, True])), x)


# -- linear algebra -----------------------------------------------------------------------
MATMUL_SHAPES = [((2, 3), (3, 4)), ((3,), (3, 4)), ((2, 3), (3,)), ((3,), (3,)),
                 ((5, 2, 3), (3, 4)), ((2, 3), (5, 3, 4)), ((2, 1, 2, 3), (5, 3, 2)),
                 ((2, 3), (4, 3))]  # the last one: inner dims differ, ValueError


@pytest.mark.parametrize("dtype", DTYPES)
def test_matmul(check, arr, dtype):
    for sa, sb in MATMUL_SHAPES:
        a, b = arr(sa, dtype), arr(sb, dtype)
        check(lambda a, b: np.matmul(a, b), a, b)
        check(lambda a, b: a @ b, a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_dot(check, arr, dtype):
    for sa, sb in MATMUL_SHAPES + [((), (3,)), ((2, 3, 4), (4,)), ((2, 3, 4), (5, 4, 2))]:
        check(lambda a, b: np.dot(a, b), arr(sa, dtype), arr(sb, dtype))
    check(lambda a, b: a.dot(b), arr((2, 3), dtype), arr((3,), dtype))
    check(lambda a: np.dot(a, 2), arr((2, 3), dtype))


@pytest.mark.parametrize("dtype", NUMERIC)
def test_other_products(check, arr, dtype):
    a, b = arr((2, 3), dtype), arr((4, 3), dtype)
    check(lambda a, b: np.inner(a, b), a, b)
    check(lambda a, b: np.outer(a, b), a, b)
    check(lambda a, b: np.vdot(a, b), a, b[:2])
    check(lambda a, b: np.vecdot(a, b), a, arr((3,), dtype))
    check(lambda a, b: np.matvec(a, b), a, arr((3,), dtype))
    check(lambda a, b: np.vecmat(a, b), arr((4,), dtype), b)
    check(lambda a, b: np.cross(a, b), a, b[:2])


EINSUMS = [("ij,jk->ik", (2, 3), (3, 4)), ("ij,jk", (2, 3), (3, 4)), ("i,i", (3,), (3,)),
           ("i,j->ij", (3,), (2,)), ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
           ("...ij,...jk", (2, 2, 3), (3, 4)), ("ij->ji", (2, 3)), ("ii->i", (3, 3)),
           ("ij->", (2, 3)), ("ii", (3, 3)), ("ijk->kj", (2, 3, 4))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", EINSUMS, ids=lambda c: c[0])
def test_einsum(check, arr, case, dtype):
    subscripts, *shapes = case
    check(lambda *ops: np.einsum(subscripts, *ops), *[arr(s, dtype) for s in shapes])


TENSORDOTS = [((2, 3, 4), (3, 4, 5), 2), ((2, 3), (3, 4), 1), ((2, 3), (4, 5), 0),
              ((2, 3, 4), (4, 3, 2), ([1, 2], [1, 0])), ((3, 4), (4, 3), ((0, 1), (1, 0))),
              ((2, 3), (2, 3), ([0], [1]))]  # the last one: sizes differ, ValueError


@pytest.mark.parametrize("dtype", NUMERIC)
def test_tensordot(check, arr, dtype):
    for sa, sb, axes in TENSORDOTS:
        check(lambda a, b: np.tensordot(a, b, axes=axes), arr(sa, dtype), arr(sb, dtype))
        check(lambda a, b: np.tensordot(a, b, axes), arr(sa, dtype), arr(sb, dtype))


# -- shape manipulation -------------------------------------------------------------------
SHAPE_FNS = {
    "reshape": lambda x: np.reshape(x, (4, 6)),
    "reshape-1": lambda x: np.reshape(x, (-1,)),
    "reshape_F": lambda x: np.reshape(x, (3, -1), order="F"),
    "reshape_bad": lambda x: np.reshape(x, (5, 5)),
    "transpose": lambda x: np.transpose(x),
    "transpose_axes": lambda x: np.transpose(x, (1, 0, 2)),
    "transpose_neg": lambda x: np.transpose(x, (-1, 0, 1)),
    "squeeze": lambda x: np.squeeze(x[:1]),
    "squeeze_axis": lambda x: np.squeeze(x[:, :1], axis=1),
    "squeeze_bad": lambda x: np.squeeze(x, axis=0),
    "expand_dims": lambda x: np.expand_dims(x, 0),
    "expand_dims_neg": lambda x: np.expand_dims(x, -1),
    "expand_dims_tuple": lambda x: np.expand_dims(x, (0, 3)),
    "broadcast_to": lambda x: np.broadcast_to(x[0], (5, 3, 4)),
    "broadcast_to_1": lambda x: np.broadcast_to(x[:, :1], (2, 3, 4)),
    "swapaxes": lambda x: np.swapaxes(x, 0, 2),
    "moveaxis": lambda x: np.moveaxis(x, 0, -1),
    "ravel": lambda x: np.ravel(x),
    "flip": lambda x: np.flip(x, axis=1),
    "repeat": lambda x: np.repeat(x, 2, axis=1),
    "tile": lambda x: np.tile(x, (1, 2, 1)),
    "roll": lambda x: np.roll(x, 1, axis=-1),
    "atleast_2d": lambda x: np.atleast_2d(x[0, 0]),
    "copy": lambda x: np.copy(x),
    "astype": lambda x: np.astype(x, np.float32),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(SHAPE_FNS))
def test_shape_manipulation(check, arr, name, dtype):
    check(SHAPE_FNS[name], arr((2, 3, 4), dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_concatenate_and_stack(check, arr, dtype):
    a, b = arr((2, 3), dtype), arr((2, 3), dtype, "pos")
    for axis in (0, 1, -1, None):
        check(lambda a, b: np.concatenate([a, b], axis=axis), a, b)
        check(lambda a, b: np.concatenate((a, b, a), axis), a, b)
    check(lambda a, b: np.concatenate([a, b[:, :1]], axis=1), a, b)
    check(lambda a: np.concatenate([a, np.ones((1, 3), np.float64)]), a)  # mixed dtypes
    check(lambda a, b: np.concatenate([a, b], axis=0, dtype=np.float32), a, b)
    for axis in (0, 1, 2, -1):
        check(lambda a, b: np.stack([a, b], axis=axis), a, b)
    check(lambda a, b: np.stack((a, b[0])), a, b)  # shapes differ: ValueError
    check(lambda a, b: np.vstack([a, b]), a, b)
    check(lambda a, b: np.hstack([a, b]), a, b)
    check(lambda a, b: np.column_stack([a[0], b[0]]), a, b)


@pytest.mark.parametrize("dtype", DTYPES)
def test_take(check, arr, dtype):
    x = arr((3, 4), dtype)
    idx = np.array([2, 0, -1])
    check(lambda x: np.take(x, idx), x)
    check(lambda x: np.take(x, idx, axis=1), x)
    check(lambda x: np.take(x, 1, axis=0), x)
    check(lambda x: np.take(x, [[0, 1], [1, 2]], axis=-1), x)
    check(lambda x, i: np.take(x, i, axis=0), x, np.array([1, 2, 2]))
    check(lambda x: np.take(x, np.array([5, -7]), axis=1, mode="clip"), x)
    check(lambda x: np.take(x, np.array([5, -7]), axis=1, mode="wrap"), x)
    check(lambda x: np.take(x, np.array([5])), x.ravel()[:3])  # IndexError
    check(lambda x: x.take(idx, axis=0), x)


# -- selection ----------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_where(check, arr, dtype):
    x, y = arr((2, 3), dtype), arr((3,), dtype, "pos")
    c = arr((2, 3), "bool")
    check(lambda c, x, y: np.where(c, x, y), c, x, y)
    check(lambda x, y: np.where(x > y, x, y), x, y)
    check(lambda x: np.where(x, 1, 0), x)
    check(lambda x: np.where(x > 1, x, 0.5), x)     # Python scalars are weak (NEP 50)
    check(lambda x: np.where(c, x, 7), x)           # NumPy constant condition
    check(lambda c: np.where(c, x, y), c)           # only the condition is symbolic
    check(lambda x: np.where(x > 0, x, np.float64(0)), x)


@pytest.mark.parametrize("dtype", NUMERIC)
def test_clip(check, arr, dtype):
    x = arr((2, 3), dtype)
    check(lambda x: np.clip(x, 0, 1), x)
    check(lambda x: np.clip(x, -1.5, 1.5), x)
    check(lambda x: np.clip(x, None, 1), x)
    check(lambda x: np.clip(x, min=0), x)
    check(lambda x: np.clip(x, max=1), x)
    check(lambda x, lo, hi: np.clip(x, lo, hi), x, arr((3,), dtype), arr((), dtype, "pos"))
    check(lambda x: x.clip(0, 2), x)
    check(lambda x: x.clip(max=2), x)


# -- array creation -----------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_like_constructors(check, arr, dtype):
    x = arr((2, 3), dtype)
    check(lambda x: np.zeros_like(x), x)
    check(lambda x: np.ones_like(x), x)
    check(lambda x: np.ones_like(x, dtype=np.float32), x)
    check(lambda x: np.full_like(x, 7), x)
    check(lambda x: np.full_like(x, 2.5, dtype=np.float64), x)
    check(lambda x, v: np.full_like(x, v), x, arr((), "float64"))
    check(lambda x: np.zeros_like(x, shape=(4,)), x)


@pytest.mark.parametrize("dtype", DTYPES)
def test_static_constructors(check, arr, dtype):
    """eye/zeros/ones/full/arange with static arguments (e.g. x.shape) combined with x."""
    x = arr((3, 3), dtype)
    check(lambda x: x + np.eye(3), x)
    check(lambda x: x * np.eye(3, dtype=x.dtype), x)
    check(lambda x: x + np.eye(x.shape[0], k=1, dtype=np.int32), x)
    check(lambda x: x + np.zeros(x.shape, x.dtype), x)
    check(lambda x: x - np.ones((3,), np.float32), x)
    check(lambda x: x * np.full(x.shape, 2, x.dtype), x)
    check(lambda x: x + np.full((1, 3), 0.5), x)
    check(lambda x: x * np.arange(x.shape[1]), x)
    check(lambda x: x + np.arange(0.0, 1.5, 0.5, dtype=np.float32), x)
    check(lambda x: np.stack([x[0], np.arange(3, dtype=x.dtype)]), x)


# -- cumulative ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", DTYPES)
def test_cumulative(check, arr, dtype):
    x = arr((2, 3), dtype)
    for axis in (None, 0, 1, -1):
        check(lambda x: np.cumsum(x, axis=axis), x)
        check(lambda x: np.cumprod(x, axis=axis), x)
        check(lambda x: x.cumsum(axis), x)
    check(lambda x: np.cumsum(x, axis=0, dtype=np.float32), x)
    check(lambda x: np.cumsum(x), arr((), dtype))
    check(lambda x: np.diff(x, axis=1), x)


# -- Tensor methods and attributes ----------------------------------------------------------
METHODS = {
    "astype_f32": lambda x: x.astype(np.float32),
    "astype_i8": lambda x: x.astype("int8"),
    "astype_bool": lambda x: x.astype(bool),
    "astype_nocopy": lambda x: x.astype(x.dtype, copy=False),
    "reshape_args": lambda x: x.reshape(3, 2),
    "reshape_tuple": lambda x: x.reshape((6, 1)),
    "reshape_neg": lambda x: x.reshape(-1),
    "reshape_F": lambda x: x.reshape((3, 2), order="F"),
    "T": lambda x: x.T,
    "transpose": lambda x: x.transpose(),
    "transpose_args": lambda x: x.transpose(1, 0),
    "transpose_tuple": lambda x: x.transpose((1, 0)),
    "sum": lambda x: x.sum(),
    "sum_axis": lambda x: x.sum(0),
    "sum_kw": lambda x: x.sum(axis=-1, keepdims=True),
    "sum_dtype": lambda x: x.sum(1, np.float64),
    "mean": lambda x: x.mean(axis=0),
    "prod": lambda x: x.prod(1, keepdims=True),
    "max": lambda x: x.max(),
    "max_axis": lambda x: x.max(axis=1, keepdims=True),
    "min": lambda x: x.min(0),
    "std": lambda x: x.std(ddof=1),
    "var": lambda x: x.var(axis=0),
    "any": lambda x: x.any(axis=1),
    "all": lambda x: x.all(),
    "argmax": lambda x: x.argmax(),
    "argmax_axis": lambda x: x.argmax(axis=1),
    "argmin": lambda x: x.argmin(axis=0, keepdims=True),
    "cumsum": lambda x: x.cumsum(),
    "clip": lambda x: x.clip(0, 1),
    "squeeze": lambda x: x[:1].squeeze(),
    "squeeze_axis": lambda x: x[:, :1].squeeze(axis=1),
    "flatten": lambda x: x.flatten(),
    "ravel": lambda x: x.ravel(),
    "copy": lambda x: x.copy(),
    "take": lambda x: x.take([0, -1]),
    "round": lambda x: x.round(),
    "round_2": lambda x: (x / 3).round(2),
    "dot": lambda x: x.dot(np.ones((3,), x.dtype)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(METHODS))
def test_tensor_method(check, arr, name, dtype):
    check(METHODS[name], arr((2, 3), dtype))


@pytest.mark.parametrize("shape", [(), (3,), (2, 3)])
def test_static_attributes(check, arr, shape):
    """shape / ndim / dtype / size / len are static and equal NumPy's while tracing."""
    x = arr(shape, "float32")
    seen = {}

    def fn(x):
        seen.update(shape=x.shape, ndim=x.ndim, dtype=x.dtype, size=x.size)
        if x.ndim:
            seen["len"] = len(x)
        return x.reshape(x.shape + (1,)) * x.ndim

    check(fn, x)
    expected = dict(shape=x.shape, ndim=x.ndim, dtype=x.dtype, size=x.size)
    if x.ndim:
        expected["len"] = len(x)
    assert seen == expected


def test_iterating_a_tensor(check, arr):
    check(lambda x: [row * 2 for row in x], arr((3, 2), "int32"))
    check(lambda x: tuple(np.sum(r) for r in x), arr((2, 3), "float32"))


def test_asarray_of_a_tensor_is_a_graph_mode_error(arr):
    """np.asarray/np.array are not dispatched to __array_function__: they need a value."""
    import runtime

    for convert in (np.asarray, np.array, lambda x: np.array([x, x])):
        with pytest.raises(runtime.GraphModeError, match="np.asarray"):
            runtime.function(lambda x: convert(x) + 1)(arr((3,), "float32"))


# -- more registered functions --------------------------------------------------------------
MORE_FNS = {
    "atleast_1d": lambda x, y: np.atleast_1d(x[0, 0]),
    "atleast_3d": lambda x, y: np.atleast_3d(x),
    "atleast_2d_two": lambda x, y: np.atleast_2d(x[0, 0], y),
    "pad": lambda x, y: np.pad(x, 1),
    "pad_kwargs": lambda x, y: np.pad(x, ((1, 0), (0, 2)), constant_values=7),
    "pad_edge": lambda x, y: np.pad(x, 2, mode="edge"),
    "isclose": lambda x, y: np.isclose(x, y),
    "allclose": lambda x, y: np.allclose(x, y),
    "array_equal": lambda x, y: np.array_equal(x, x),
    "sort": lambda x, y: np.sort(x, axis=0),
    "argsort": lambda x, y: np.argsort(x, kind="stable"),
    "tril": lambda x, y: np.tril(x, -1),
    "triu": lambda x, y: np.triu(x),
    "diagonal": lambda x, y: np.diagonal(x),
    "trace": lambda x, y: np.trace(x),
    "round": lambda x, y: np.round(x * 10 / 3, 1),
    "count_nonzero": lambda x, y: np.count_nonzero(x, axis=0),
    "nan_to_num": lambda x, y: np.nan_to_num(np.log(x), neginf=-9.0),
}


@pytest.mark.parametrize("dtype", ["float64", "int32", "bool"])
@pytest.mark.parametrize("name", list(MORE_FNS))
def test_more_functions(check, arr, name, dtype):
    check(MORE_FNS[name], arr((3, 3), dtype), arr((3,), dtype, "pos"))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_linalg(check, arr, dtype):
    a = arr((3, 3), dtype) + 3 * np.eye(3, dtype=dtype)
    b = arr((3,), dtype)
    check(lambda a: np.linalg.inv(a), a)
    check(lambda a: np.linalg.det(a), a)
    check(lambda a, b: np.linalg.solve(a, b), a, b)
    check(lambda a: np.linalg.norm(a), a)
    check(lambda a: np.linalg.norm(a, axis=1, keepdims=True), a)


def test_static_keyword_arguments_must_not_be_symbolic(arr):
    import runtime

    x = arr((3,), "float32")
    for fn, name in [(lambda x: np.sum(x, where=x > 0), "'where'"),
                     (lambda x: np.roll(x, x.argmax()), "'shift'"),
                     (lambda x: np.concatenate([x, x], axis=x.argmax()), "'axis'")]:
        with pytest.raises(TypeError, match=f"argument {name} must be a static value"):
            runtime.function(fn)(x)


MISSING_METHODS = {
    "cumprod": lambda x: x.cumprod(), "argsort": lambda x: x.argsort(),
    "repeat": lambda x: x.repeat(2), "swapaxes": lambda x: x.swapaxes(0, 1),
    "conj": lambda x: x.conj(), "real": lambda x: x.real, "imag": lambda x: x.imag,
    "diagonal": lambda x: x.diagonal(), "trace": lambda x: x.trace(), "mT": lambda x: x.mT,
    "nbytes": lambda x: x * x.nbytes, "itemsize": lambda x: x * x.itemsize,
    "flatten_F": lambda x: x.flatten("F"),
    # ndarray's positional order is (axis, dtype, out, keepdims) / (axis, out, keepdims)
    "sum_positional": lambda x: x.sum(0, None, None, True),
    "max_positional": lambda x: x.max(0, None, True),
    "std_positional": lambda x: x.std(0, None, None, 1),
}


@pytest.mark.parametrize("name", list(MISSING_METHODS))
def test_missing_ndarray_methods(check, arr, name):
    check(MISSING_METHODS[name], arr((2, 2), "float32"))


# -- composite programs: the executor's buffer reuse and name recycling ----------------------
def _chain(x, y):
    a = np.exp(x)            # a dies in `c`: c may be written into a's buffer
    b = a * y
    c = b + a
    d = c.T                  # a view of c: c must not be overwritten afterwards
    e = np.tanh(c) - 1
    f = e * e
    return d, f, np.sum(f, axis=0) + b.max()


def _views(x, y):
    v = x * 2
    r = v.reshape(-1)        # a view of v
    u = np.negative(v)       # v dies here, but r still sees its buffer
    return r, u + 1, v[0] > 0


def _shared(x, y):
    s = x + y
    t = s * s
    return s, t, t


@pytest.mark.parametrize("fn", [_chain, _views, _shared], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_composite_programs(check, arr, fn, dtype):
    check(fn, arr((2, 3), dtype), arr((3,), dtype, "pos"))
    check(fn, arr((3, 3), dtype), arr((3, 3), dtype, "pos"))
