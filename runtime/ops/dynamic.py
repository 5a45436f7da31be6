"""Ops whose sizes are symbolic or depend on the values: `np.zeros(n)`, `np.arange(k)`,
`x.reshape(n, -1)`, `np.repeat(x, k)` with a symbolic `n`/`k`; `np.nonzero`,
`np.flatnonzero`, `np.argwhere`, `np.unique` (and `unique_values/_counts/_inverse/_all`),
`np.bincount` and `np.append`.

The result's unknown dimensions are None in the static shape (dynamic_rules.py) and a
symbolic `x.shape[i]` in user code. NumPy's creation functions (`np.zeros`, ...) take
sizes through `__index__`, which no protocol lets a Tensor answer, so converted code
routes a creation call with a symbolic argument here (`CREATORS`, used by
`autograph`'s `converted_call`; so is `np.pad` of a NumPy array with a symbolic
`constant_values`); with plain Python arguments they are NumPy's own.
"""
from __future__ import annotations

from typing import Any, Callable

import numpy as np

from runtime.core.errors import where
from runtime.core.registry import OpDef, bind, numpy_ref
from runtime.core.tensor import Tensor
from runtime.ops.dynamic_rules import RULES
from runtime.ops.functions import OPS, TABLE, _asarray, resolve_variables
# more_stats: cov, corrcoef, errors, and the np.size / np.pad / np.repeat handlers wrapped here
from runtime.ops import more_stats  # noqa: F401
# put_along_axis, trim_zeros, from_dlpack, scalar types (their creators join CREATORS)
from runtime.ops.more_arrays import CREATORS as _MORE_CREATORS
from runtime.ops.rules_common import axes_tuple
from runtime.ops.shape import symbolic_shape, symbolic_size


def _op(name: str, kernel: Callable, num_outputs: int = 1) -> OpDef:
    op = OpDef(name, kernel, RULES[name], num_outputs=num_outputs, kernel_ref=numpy_ref(kernel))
    OPS[name] = op
    return op


def _symbolic(*values) -> bool:
    return any(isinstance(v, Tensor) or (type(v) in (list, tuple) and _symbolic(*v))
               for v in values)


def _dims(shape) -> list:
    (shape,) = resolve_variables([shape])
    if isinstance(shape, Tensor) and shape.ndim == 1:
        # `np.ones(t)` with a 1-D integer array `t`: NumPy reads its items as the sizes
        n = shape.shape[0]
        if not isinstance(n, int):
            raise TypeError(f"a shape given as a symbolic 1-D array of unknown length{where()}: "
                            "the number of dimensions must be known while tracing. Give the "
                            "sizes one by one (`np.ones((t[0], t[1]))`) or a fixed-length "
                            "input_signature.")
        return [shape[k] for k in range(n)]
    shape = list(shape) if isinstance(shape, (list, tuple)) else [shape]
    return resolve_variables(shape)


# -- sizes given as symbolic scalars -------------------------------------------------------
def _reshape_kernel(x, *dims, order="C"):
    return np.reshape(x, dims, order=order)


def _filled(fn):
    def kernel(*dims, dtype=None):
        return fn(dims, dtype)
    kernel.__name__ = f"{fn.__name__}_of"
    return kernel


def _full_kernel(fill, *dims, dtype=None):
    return np.full(dims, fill, dtype)


def _arange_kernel(start, stop, step, dtype=None):
    return np.arange(start, stop, step, dtype=dtype)


def _linspace_kernel(start, stop, num, **attrs):
    return np.linspace(start, stop, num, **attrs)


def _eye_kernel(n, m, k, dtype=None):
    return np.eye(n, m, k, dtype=dtype)


def _repeat_kernel(x, repeats, axis=None):
    return np.repeat(x, repeats, axis=axis)


def _tile_kernel(x, *reps):
    return np.tile(x, reps)


RESHAPE = _op("reshape_dynamic", _reshape_kernel)
ZEROS, ONES, EMPTY = (_op(f.__name__, _filled(f)) for f in (np.zeros, np.ones, np.empty))
FULL = _op("full", _full_kernel)
ARANGE = _op("arange", _arange_kernel)
LINSPACE = _op("linspace", _linspace_kernel)
EYE = _op("eye", _eye_kernel)
REPEAT = _op("repeat_dynamic", _repeat_kernel)
TILE = _op("tile_dynamic", _tile_kernel)


def _static_dtype(dtype, name: str):
    if isinstance(dtype, Tensor):
        raise TypeError(f"np.{name}: dtype must be static{where()}")
    return None if dtype is None else np.dtype(dtype)


def zeros(shape, dtype=float, order="C", *, like=None) -> Any:
    return bind(ZEROS, *_dims(shape), dtype=_static_dtype(dtype, "zeros"))


def ones(shape, dtype=None, order="C", *, like=None) -> Any:
    return bind(ONES, *_dims(shape), dtype=_static_dtype(dtype, "ones"))


def empty(shape, dtype=float, order="C", *, like=None) -> Any:
    return bind(EMPTY, *_dims(shape), dtype=_static_dtype(dtype, "empty"))


def full(shape, fill_value, dtype=None, order="C", *, like=None) -> Any:
    (fill,) = resolve_variables([fill_value])
    if type(fill) in (list, tuple):
        fill = _asarray(fill)
    return bind(FULL, fill, *_dims(shape), dtype=_static_dtype(dtype, "full"))


def arange(start, stop=None, step=None, dtype=None, *, device=None, like=None) -> Any:
    start, stop, step = resolve_variables([start, stop, step])
    for v in (start, stop, step):
        if isinstance(v, Tensor) and v.ndim != 0:
            raise TypeError(f"np.arange: arguments must be scalars, not {v!r}{where()}")
    return bind(ARANGE, start, stop, step, dtype=_static_dtype(dtype, "arange"))


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *,
             device=None) -> Any:
    if retstep or axis != 0:
        raise TypeError(f"np.linspace with a symbolic argument supports neither retstep=True "
                        f"nor axis={axis!r}{where()}")
    start, stop, num = resolve_variables([start, stop, num])
    return bind(LINSPACE, start, stop, num, endpoint=bool(endpoint),
                dtype=_static_dtype(dtype, "linspace"))


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None) -> Any:
    n, m, k = resolve_variables([N, M, k])
    return bind(EYE, n, m, k, dtype=_static_dtype(dtype, "eye"))


def identity(n, dtype=None, *, like=None) -> Any:
    return eye(n, dtype=float if dtype is None else dtype)


CREATORS: dict = {np.zeros: zeros, np.ones: ones, np.empty: empty, np.full: full,
                  np.arange: arange, np.linspace: linspace, np.eye: eye,
                  np.identity: identity, **_MORE_CREATORS}


def creator_call(f, args, kwargs) -> Any:
    """`f(*args, **kwargs)` for a NumPy creation function: the graph op when a size is
    symbolic, NumPy's own function otherwise (`NotImplemented` when `f` is not one)."""
    impl = CREATORS.get(f)
    if impl is None:
        return NotImplemented
    if not _symbolic(*args, *kwargs.values()):
        return f(*args, **kwargs)
    return impl(*args, **kwargs)


# -- NumPy functions taking a symbolic size along with an array (dispatched) ---------------
def _wrap(fn, symbolic_arg: Callable) -> None:
    plain = TABLE.handlers.get(fn)

    def handler(*args, **kwargs):
        dynamic = symbolic_arg(*args, **kwargs)
        if dynamic is None:
            if plain is None:
                raise TypeError(f"np.{fn.__name__} is not supported in graphs{where()}")
            return plain(*args, **kwargs)
        return dynamic
    TABLE.handlers[fn] = handler


def _reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    shape = newshape if shape is None else shape
    if not _symbolic(shape):
        return None
    return bind(RESHAPE, *resolve_variables([a]), *_dims(shape), order=order)


def _repeat(a, repeats, axis=None):
    if not isinstance(repeats, Tensor):
        return None
    return bind(REPEAT, *resolve_variables([a, repeats]), axis=axis)


def _tile(A, reps):
    if not _symbolic(reps):
        return None
    return bind(TILE, *resolve_variables([A]), *_dims(reps))


def _broadcast_to_kernel(x, *dims):
    return np.broadcast_to(x, dims)


BROADCAST_TO = _op("broadcast_to_dynamic", _broadcast_to_kernel)


def _broadcast_to(array, shape, subok=False):
    if not _symbolic(shape):
        return None
    return bind(BROADCAST_TO, *resolve_variables([array]), *_dims(shape))


_wrap(np.broadcast_to, _broadcast_to)
_wrap(np.reshape, _reshape)
_wrap(np.repeat, _repeat)
_wrap(np.tile, _tile)


# -- data-dependent lengths ----------------------------------------------------------------
def _nonzero_kernel(a):
    return np.nonzero(a)


NONZERO = _op("nonzero", _nonzero_kernel, num_outputs=-1)
FLATNONZERO = _op("flatnonzero", np.flatnonzero)
ARGWHERE = _op("argwhere", np.argwhere)


def _unique_kernel(ar, **flags):
    out = np.unique(ar, **flags)
    return out if isinstance(out, tuple) else (out,)


UNIQUE = _op("unique", _unique_kernel, num_outputs=-1)
# NumPy's named results of unique_counts / unique_inverse / unique_all
_COUNTS, _INVERSE, _ALL = (type(f(np.zeros(1))) for f in (
    np.unique_counts, np.unique_inverse, np.unique_all))


def _bincount_kernel(x, weights, minlength=0, weighted=False):
    out = np.bincount(x, weights, minlength)
    # NumPy gives int64 for an empty input even with weights: an unknown length is float64
    return out.astype(np.float64, copy=False) if weighted else out


BINCOUNT = _op("bincount", _bincount_kernel)


def _array(a):
    (a,) = resolve_variables([a])
    return _asarray(a) if type(a) in (list, tuple) else a


@TABLE.register(np.nonzero)
def _nonzero(a):
    return bind(NONZERO, _array(a))


@TABLE.register(np.flatnonzero)
def _flatnonzero(a):
    return bind(FLATNONZERO, _array(a))


@TABLE.register(np.argwhere)
def _argwhere(a):
    return bind(ARGWHERE, _array(a))


@TABLE.register(np.unique)
def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None,
           *, equal_nan=True, sorted=True):
    flags = {k: True for k, v in (("return_index", return_index),
                                  ("return_inverse", return_inverse),
                                  ("return_counts", return_counts)) if v}
    if axis is not None:
        if isinstance(axis, Tensor):
            raise TypeError(f"np.unique: `axis` must be static in graphs{where()}")
        flags["axis"] = axis
    if not equal_nan:
        flags["equal_nan"] = False
    if not sorted:  # (np.unique_values: in the order NumPy's hash table gives)
        flags["sorted"] = False
    out = bind(UNIQUE, _array(ar), **flags)
    return out[0] if len(out) == 1 else out


@TABLE.register(np.unique_values)
def _unique_values(x):
    return unique(x, sorted=False)


@TABLE.register(np.unique_counts)
def _unique_counts(x):
    return _COUNTS(*unique(x, return_counts=True))


@TABLE.register(np.unique_inverse)
def _unique_inverse(x):
    return _INVERSE(*unique(x, return_inverse=True))


@TABLE.register(np.unique_all)
def _unique_all(x):
    return _ALL(
        *unique(x, return_index=True, return_inverse=True, return_counts=True))


@TABLE.register(np.bincount)
def _bincount(x, weights=None, minlength=0):
    if isinstance(minlength, Tensor):
        raise TypeError(f"np.bincount: minlength must be static{where()}")
    x, weights = _array(x), _array(weights)
    attrs = {"minlength": minlength} if minlength else {}
    if weights is not None and isinstance(x, Tensor) and x.static_shape[:1] == (None,):
        attrs["weighted"] = True
    return bind(BINCOUNT, x, weights, **attrs)


@TABLE.register(np.append)
def _append(arr, values, axis=None):
    arr, values = _array(arr), _array(values)
    if axis is None:
        return np.concatenate((np.ravel(arr), np.ravel(values)))
    return np.concatenate((arr, values), axis=axis)


def _pad_kernel(x, pad_width, constant_values):
    return np.pad(x, pad_width, constant_values=constant_values)


PAD = _op("pad_dynamic", _pad_kernel)


def _pad(array, pad_width, mode="constant", **kwargs):
    c = kwargs.get("constant_values", 0)
    if not _symbolic(pad_width):  # (a symbolic constant_values alone: more_stats.py)
        return None
    if mode != "constant" or set(kwargs) - {"constant_values"}:
        raise TypeError(f"np.pad with a symbolic pad_width or constant_values supports only "
                        f"mode='constant'{where()}")
    widths = _array(pad_width) if _symbolic(pad_width) else np.asarray(pad_width)
    return bind(PAD, *resolve_variables([array]), widths, _array(c))


_static_size = TABLE.handlers.get(np.size)


def _size(a, axis=None):
    """np.size of a Tensor: as x.size / x.shape[axis] (symbolic where unknown)."""
    (a,) = resolve_variables([a])
    if not isinstance(a, Tensor):
        return np.size(a, axis)
    shp = a.static_shape
    dims = shp if axis is None else tuple(shp[i] for i in axes_tuple(axis, len(shp)))
    if None not in dims or 0 in dims:
        return _static_size(a, axis)
    if axis is None:
        return symbolic_size(a)
    n = 1
    for d in (symbolic_shape(a)[i] for i in axes_tuple(axis, len(shp))):
        n = n * d
    return n


_wrap(np.pad, _pad)
TABLE.handlers[np.size] = _size
# np.pad(array, w, constant_values=c) dispatches on `array` only: a symbolic c or w with
# a NumPy array is routed like a creation function
CREATORS[np.pad] = lambda array, *args, **kwargs: TABLE.handlers[np.pad](array, *args, **kwargs)


@TABLE.register(np.extract)
def _extract(condition, arr):
    # NumPy's own definition: the items of ravel(arr) where ravel(condition) is nonzero
    return np.take(np.ravel(_array(arr)), np.nonzero(np.ravel(_array(condition)))[0])


@TABLE.register(np.compress)
def _compress(condition, a, axis=None, out=None):
    if out is not None:
        raise TypeError(f"np.compress(..., out=...) is not supported in graphs{where()}")
    a, condition = _array(a), _array(condition)
    if np.ndim(condition) != 1:
        raise ValueError(f"condition must be a 1-d array{where()}")
    index = np.nonzero(condition)[0]
    return np.take(np.ravel(a), index) if axis is None else np.take(a, index, axis=axis)
