"""NumPy functions that write into, view or trim an array, in graphs:

- `np.put_along_axis(arr, indices, values, axis)` writes into `arr` in place. On a
  symbolic `arr` it is op "put_along_axis" (the updated copy, NumPy's own function as
  the kernel, defined here) made `arr`'s new value through runtime/state/views.py,
  exactly like `arr[i] = v` (the handler: runtime/state/in_place_functions.py): aliases
  and views see it, and an argument array is written back after the call. axis=None is
  refused: NumPy then writes through `np.array(arr.flat)`, a view of a C-contiguous
  `arr` (a copy, left unwritten, in older NumPy) and a read-only copy of any other, so
  the effect depends on a memory layout a graph does not know.
- `np.trim_zeros(filt, trim, axis)`: the slice `filt[start:stop, ...]` with bounds
  computed in the graph (the result's trimmed dims are unknown while tracing); a view of
  `filt`, as in NumPy.
- `np.from_dlpack(x)` of a symbolic array: a view of it (a copy with copy=True), which
  is what NumPy gives for an ndarray. NumPy asks `x.__dlpack__` for memory instead of
  dispatching, so converted code routes the call here (`CREATORS`, which dynamic.py
  merges into its own).
- `np.int64(x)`, `np.float32(x)`, `np.bool_(x)`... of a symbolic value: NumPy's scalar
  types convert an array like `astype` does (truncation, wrap-around, the same cast
  warnings), giving a NumPy scalar for a 0-d value and an array otherwise. NumPy
  converts through `__array__` instead of dispatching, so converted code routes these
  calls here too.

Rule: more_rules.py ("put_along_axis"); gradient: runtime/autodiff/more_rules.py.
"""
from __future__ import annotations

from typing import Any

import numpy as np

from runtime.core.errors import where
from runtime.core.registry import OpDef, bind
from runtime.core.tensor import Tensor
from runtime.ops.functions import OPS, TABLE, _rule, resolve_variables
from runtime.ops.rules_common import axes_tuple, static_error
from runtime.ops.shape import symbolic_shape

# NumPy functions converted code routes here with a symbolic argument (dynamic.py adds
# them to its `CREATORS`)
CREATORS: dict = {}


def _put_along_axis_kernel(arr, indices, values, axis):
    out = np.array(arr, copy=True)
    np.put_along_axis(out, indices, values, axis)
    return out


PUT_ALONG_AXIS = OpDef("put_along_axis", _put_along_axis_kernel, _rule("put_along_axis"))
OPS[PUT_ALONG_AXIS.name] = PUT_ALONG_AXIS


def put_along_axis_value(arr: Any, indices: Any, values: Any, axis: int | None) -> Any:
    """The array `np.put_along_axis(arr, indices, values, axis)` would leave in `arr`
    (a new value; `arr` is not changed)."""
    return bind(PUT_ALONG_AXIS, arr, indices, values, axis=axis)


@TABLE.register(np.trim_zeros)
def _trim_zeros(filt, trim="fb", axis=None):
    (x,) = resolve_variables([filt])
    if not isinstance(trim, str):
        raise TypeError(f"np.trim_zeros: `trim` must be a static string{where()}")
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise static_error(ValueError, f"unexpected character(s) in `trim`: {trim!r}")
    nd = x.ndim
    trimmed = tuple(range(nd)) if axis is None else axes_tuple(axis, nd)
    if not trimmed:
        return filt
    dims = symbolic_shape(x)
    found = np.not_equal(x, 0)
    # each axis: the first and last position where some value is nonzero; an all-zero
    # array is cut to nothing along every trimmed axis
    has = np.any(found)
    index = []
    for ax in range(nd):
        if ax not in trimmed:
            index.append(slice(None))
            continue
        others = tuple(k for k in range(nd) if k != ax)
        seen = np.any(found, axis=others) if others else found
        stop = dims[ax]
        # (a True appended: argmax of an empty axis is an error; it never wins otherwise)
        first = np.argmax(np.concatenate((seen, np.ones(1, bool)))) if "f" in trim else 0
        if "b" in trim:
            stop = stop - np.argmax(np.concatenate((np.flip(seen), np.ones(1, bool))))
        index.append(slice(np.where(has, first, 0), np.where(has, stop, 0)))
    return filt[tuple(index)] if nd > 1 else filt[index[0]]


def from_dlpack(x, /, *, device=None, copy=None) -> Any:
    """`np.from_dlpack(x)` of a symbolic array: NumPy's result for an ndarray, a view of
    it (or a copy with copy=True)."""
    if device is not None and device != "cpu":
        raise static_error(ValueError, f'Device not understood. Only "cpu" is allowed, but '
                           f"received: {device}")
    (x,) = resolve_variables([x])
    if not isinstance(x, Tensor):
        return np.from_dlpack(x, device=device, copy=copy)
    if copy:
        return x.copy()
    return x[...]


CREATORS[np.from_dlpack] = from_dlpack


def _scalar_type_call(sctype: type):
    def convert(*args, **kwargs) -> Any:
        if len(args) != 1 or kwargs:
            raise TypeError(f"np.{sctype.__name__}(...) of a symbolic value takes the value "
                            f"only{where()}.")
        (x,) = resolve_variables(list(args))
        if not isinstance(x, Tensor):
            return sctype(x)
        if x.dtype.kind not in "biufc":
            raise TypeError(f"np.{sctype.__name__}() of a symbolic {x.dtype} value{where()}: "
                            "only numbers and booleans convert in graphs.")
        return np.astype(x, sctype)
    convert.__name__ = sctype.__name__
    return convert


for _sctype in {np.dtype(c).type for c in "?bhilqBHILQefdgFDG"}:
    CREATORS[_sctype] = _scalar_type_call(_sctype)

