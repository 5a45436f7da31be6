"""Everyday NumPy functions built from other ops (no records of their own, so gradients
and batching come from those ops):

- `np.where(condition)` with one argument: `np.nonzero(condition)`, as NumPy defines it
  (a tuple of index arrays whose length is known when the graph runs).
- `np.dstack(arrays)`: each made at least 3-D, joined along axis 2.
- `np.ptp(a, axis, keepdims)` (and `a.ptp` is NumPy 1's): max minus min.
- `np.insert(arr, i, values, axis)` with one static position `i`: the values (cast to
  `arr`'s dtype, shaped as NumPy shapes them) between `arr[:i]` and `arr[i:]`. Several
  positions are refused with a clear error.
- `np.intersect1d(a, b, assume_unique)`: the sorted values found in both (a length known
  when the graph runs); `return_indices=True` is refused.
- 0-d values keep NumPy's kind: `np.asarray(v)` (and `asanyarray`, `np.array(v,
  copy=None/False)`) of a 0-d value is op "asarray_0d" (NumPy scalar -> 0-d array, a 0-d
  array itself), and `v.copy()` of one is op "copy_0d" (a scalar stays a scalar). Without
  them a reduction's scalar passed through `np.asarray` unchanged, or `s.copy()` became
  `np.copy(s)`, a 0-d array.
- `x.view(dtype)` with a dtype of the same item size: op "view_as" (the bytes read as
  that dtype; `ndarray.view` as the kernel). Another item size depends on the memory
  layout, which a graph does not know: refused (runtime/core/tensor.py).
- `np.lib.stride_tricks.sliding_window_view(x, window_shape, axis)`: windows gathered by
  index along each windowed axis (a copy where NumPy gives a read-only view: the values,
  dtype and shape are NumPy's, and no write can go through either).
- `np.unpackbits(a, axis, count, bitorder)` / `np.packbits(a, axis, bitorder)`: ops
  whose kernels are NumPy's (uint8 results; the length along the axis is static).
"""
from __future__ import annotations

import operator

import numpy as np

from runtime.core.errors import where
from runtime.core.protocol import TensorProtocol
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor
from runtime.ops.functions import OPS, TABLE, resolve_variables
from runtime.ops.functions_rules import REDUCTIONS
from runtime.ops.rules_common import axis_index, shape, static_error


def _view_as_kernel(x, *, dtype):
    return np.asarray(x).view(dtype)


VIEW_AS = OpDef("view_as", _view_as_kernel,
                lambda op, ins, attrs: [(shape(ins[0]), np.dtype(attrs["dtype"]))])
OPS[VIEW_AS.name] = VIEW_AS


@TABLE.register(np.ndarray.view)
def _view(x, dtype):
    """`x.view(dtype)` of a symbolic array, `dtype` of `x`'s item size."""
    return bind(VIEW_AS, x, dtype=np.dtype(dtype))

def _same_value_rule(op, ins, attrs):
    return [(shape(ins[0]), ins[0].dtype)]


def _identity_grad(rec, cts):
    return [cts[0]]


def _copy_0d_kernel(x):
    return x.copy()  # a NumPy scalar's copy is a scalar, a 0-d array's a 0-d array


ASARRAY_0D = OpDef("asarray_0d", np.asarray, _same_value_rule, kernel_ref="np.asarray",
                   grad=_identity_grad)
COPY_0D = OpDef("copy_0d", _copy_0d_kernel, _same_value_rule, grad=_identity_grad)
OPS[ASARRAY_0D.name] = ASARRAY_0D
OPS[COPY_0D.name] = COPY_0D
_asarray_of_values = {fn: TABLE.handlers[fn] for fn in (np.asarray, np.asanyarray, np.array)}


def _kind_at_run_time(t: Tensor) -> str | None:
    """Whether the 0-d value `t` is, when the graph runs, a 0-d "array" or a NumPy
    "scalar", as far as its op says (None: either, e.g. an argument or a branch output)."""
    if t.node is None:  # an argument
        return None
    op = t.node.op
    if op.fresh_result or op is ASARRAY_0D:
        return "array"
    if isinstance(op.kernel, np.ufunc) or op.name in REDUCTIONS or op.returns_python \
            or (op.reads_element is not None and op.reads_element(t.node)):
        return "scalar"
    return None


def _asarray_keeping_kind(fn):
    def handler(a, dtype=None, *args, copy=None if fn is not np.array else True, **kwargs):
        if isinstance(a, Tensor) and a.ndim == 0 and not copy:
            if dtype is not None and np.dtype(dtype) != a.dtype:  # a new array of dtype
                return bind(ASARRAY_0D, np.astype(a, dtype))
            kind = _kind_at_run_time(a)
            if kind == "array":
                return a  # the array itself, as NumPy returns it
            out = bind(ASARRAY_0D, a)
            # a NumPy scalar gives a new array; a value of unknown kind may be the array
            # itself: a write through either then refuses (views.py, "layout")
            return out if kind == "scalar" else TensorProtocol.after_function(fn, (a,), {}, out)
        return _asarray_of_values[fn](a, dtype, *args, copy=copy, **kwargs)
    return handler


for _fn in _asarray_of_values:
    TABLE.handlers[_fn] = _asarray_keeping_kind(_fn)


@TABLE.register(np.ndarray.copy)
def _copy_0d(x):
    return bind(COPY_0D, x)


_where_of_three = TABLE.handlers[np.where]


@TABLE.register(np.where)
def _where(condition, *xy, **kwargs):
    if xy or kwargs:
        return _where_of_three(condition, *xy, **kwargs)
    (condition,) = resolve_variables([condition])
    if np.ndim(condition) == 0:
        raise static_error(ValueError, "Calling nonzero on 0d arrays is not allowed. Use "
                           "np.atleast_1d(scalar).nonzero() instead.")
    return np.nonzero(condition)


@TABLE.register(np.ptp)
def _ptp(a, axis=None, out=None, keepdims=False):
    """`np.ptp`: max minus min (NumPy's own definition), in the input's dtype."""
    if out is not None:
        raise TypeError(f"np.ptp(..., out=...) is not supported in graphs{where()}; use the "
                        "returned value.")
    (a,) = resolve_variables([a])
    return np.subtract(np.max(a, axis=axis, keepdims=keepdims),
                       np.min(a, axis=axis, keepdims=keepdims))


@TABLE.register(np.dstack)
def _dstack(tup):
    arrays = resolve_variables(list(tup))
    return np.concatenate([np.atleast_3d(a) for a in arrays], axis=2)


def _static_length(x, axis: int, what: str) -> int:
    n = x.shape[axis] if isinstance(x, Tensor) else np.shape(x)[axis]
    if not isinstance(n, int):
        raise TypeError(f"{what} needs the length of axis {axis} while tracing; it is only "
                        f"known when the graph runs{where()}. Use an input_signature with "
                        "that dimension fixed, or np.concatenate.")
    return n


@TABLE.register(np.insert)
def _insert(arr, obj, values, axis=None):
    arr, values = resolve_variables([arr, values])
    if isinstance(obj, Tensor) or np.ndim(obj) != 0 or isinstance(obj, slice):
        raise TypeError(f"np.insert at several (or symbolic) positions is not supported in "
                        f"graphs{where()}; insert at one static position per call, or join "
                        "the pieces with np.concatenate.")
    if axis is None:
        arr, axis = np.ravel(arr), 0
    else:
        axis = axis_index(axis, np.ndim(arr))
    n = _static_length(arr, axis, "np.insert")
    index = operator.index(obj)
    if not -n <= index <= n:
        raise static_error(IndexError, f"index {index} is out of bounds for axis {axis} with "
                           f"size {n}")
    if index < 0:
        index += n
    values = np.astype(values, arr.dtype) if isinstance(values, Tensor) else \
        np.array(values, dtype=arr.dtype)
    extra = np.ndim(arr) - np.ndim(values)
    if extra > 0:
        values = np.expand_dims(values, tuple(range(extra)))
    # one position: the values' first axis goes where `axis` is (NumPy's a[:, i:i+1] form)
    values = np.moveaxis(values, 0, axis)
    numnew = values.shape[axis]
    if not isinstance(numnew, int):
        raise TypeError(f"np.insert of values whose length is only known when the graph "
                        f"runs{where()}; use np.concatenate.")
    dims = list(arr.shape)
    dims[axis] = numnew
    if None in dims:
        raise TypeError(f"np.insert into an array with a dimension of unknown length"
                        f"{where()}; use np.concatenate.")
    values = np.broadcast_to(values, tuple(dims))
    before = tuple(slice(None) if d != axis else slice(None, index) for d in range(len(dims)))
    after = tuple(slice(None) if d != axis else slice(index, None) for d in range(len(dims)))
    return np.concatenate([arr[before], values, arr[after]], axis=axis)


@TABLE.register(np.intersect1d)
def _intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    if return_indices:
        raise TypeError(f"np.intersect1d(..., return_indices=True) is not supported in "
                        f"graphs{where()}.")
    a, b = resolve_variables([ar1, ar2])
    if not assume_unique:
        a, b = np.unique(a), np.unique(b)
    joined = np.sort(np.concatenate([np.ravel(a), np.ravel(b)]))
    # a value in both sits twice in a row once each side has it only once
    return joined[:-1][joined[1:] == joined[:-1]]


@TABLE.register(np.lib.stride_tricks.sliding_window_view)
def _sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    if writeable:
        raise TypeError(f"sliding_window_view(..., writeable=True) is not supported in graphs"
                        f"{where()}: its windows overlap in memory, which a graph does not "
                        "have.")
    (x,) = resolve_variables([x])
    windows = tuple(window_shape) if np.iterable(window_shape) else (window_shape,)
    if any(isinstance(w, Tensor) for w in windows):
        raise TypeError(f"sliding_window_view: the window shape must be static in graphs"
                        f"{where()}.")
    windows = tuple(operator.index(w) for w in windows)
    if any(w < 0 for w in windows):
        raise static_error(ValueError, "`window_shape` cannot contain negative values")
    nd = np.ndim(x)
    if axis is None:
        if len(windows) != nd:
            raise static_error(ValueError, f"Since axis is `None`, must provide window_shape "
                               f"for all dimensions of `x`; got {len(windows)} window_shape "
                               f"elements and `x.ndim` is {nd}.")
        axes = tuple(range(nd))
    else:
        axes = tuple(axis) if np.iterable(axis) else (axis,)
        axes = tuple(axis_index(a, nd) for a in axes)
        if len(windows) != len(axes):
            raise static_error(ValueError, f"Must provide matching length window_shape and "
                               f"axis; got {len(windows)} window_shape elements and "
                               f"{len(axes)} axes elements.")
    lengths = [_static_length(x, d, "sliding_window_view") for d in range(nd)]
    for ax, w in zip(axes, windows):
        if lengths[ax] < w:
            raise static_error(ValueError, "window shape cannot be larger than input array "
                               "shape")
        lengths[ax] -= w - 1
    out = x
    for ax, w in zip(axes, windows):
        n = out.shape[ax]
        starts = np.arange(n - w + 1)
        index = starts[:, None] + np.arange(w)[None, :]
        out = np.moveaxis(np.take(out, index, axis=ax), ax + 1, -1)
    return out


# -- np.unpackbits / np.packbits -----------------------------------------------------------
def _bits_axis(x, axis):
    """(shape the op works on, axis) as NumPy takes them: axis=None works on x flattened."""
    shape = tuple(x.static_shape)
    if axis is None:
        n = 1
        for d in shape:
            n = None if n is None or d is None else n * d
        return (n,), 0
    return shape, axis_index(axis, len(shape))


def _unpackbits_rule(op, ins, attrs):
    x = ins[0]
    if x.dtype != np.uint8:
        raise static_error(TypeError, "Expected an input array of unsigned byte data type")
    shape, axis = _bits_axis(x, attrs.get("axis"))
    n, count = shape[axis], attrs.get("count")
    if n is None:
        length = None
    elif count is None:
        length = n * 8
    elif count >= 0:
        length = count
    elif -count > n * 8:
        raise static_error(ValueError, "-count larger than number of elements")
    else:
        length = n * 8 + count
    return [(shape[:axis] + (length,) + shape[axis + 1:], np.dtype(np.uint8))]


def _packbits_rule(op, ins, attrs):
    x = ins[0]
    if x.dtype.kind not in "biu":
        raise static_error(TypeError, "Expected an input array of integer or boolean data type")
    shape, axis = _bits_axis(x, attrs.get("axis"))
    n = shape[axis]
    return [(shape[:axis] + (None if n is None else -(-n // 8),) + shape[axis + 1:],
             np.dtype(np.uint8))]


UNPACKBITS = OpDef("unpackbits", lambda a, **attrs: np.unpackbits(a, **attrs),
                   _unpackbits_rule, kernel_ref="np.unpackbits")
PACKBITS = OpDef("packbits", lambda a, **attrs: np.packbits(a, **attrs), _packbits_rule,
                 kernel_ref="np.packbits")
OPS[UNPACKBITS.name] = UNPACKBITS
OPS[PACKBITS.name] = PACKBITS


def _static_bits_args(name: str, **attrs) -> dict:
    for k, v in attrs.items():
        if isinstance(v, Tensor):
            raise TypeError(f"np.{name}: {k!r} must be a static value in graphs{where()}.")
    return {k: v for k, v in attrs.items() if v is not None and
            not (k == "bitorder" and v == "big")}


@TABLE.register(np.unpackbits)
def _unpackbits(a, /, axis=None, count=None, bitorder="big"):
    (a,) = resolve_variables([a])
    return bind(UNPACKBITS, a, **_static_bits_args("unpackbits", axis=axis, count=count,
                                                   bitorder=bitorder))


@TABLE.register(np.packbits)
def _packbits(a, /, axis=None, bitorder="big"):
    (a,) = resolve_variables([a])
    return bind(PACKBITS, a, **_static_bits_args("packbits", axis=axis, bitorder=bitorder))
