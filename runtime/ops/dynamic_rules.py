"""Shape/dtype rules of the ops whose sizes are symbolic or data-dependent (dynamic.py).

A size given as a symbolic int scalar gives an unknown (None) dimension; a result whose
length depends on the values (a mask, `np.nonzero`, `np.unique`, `np.bincount`) has an
unknown length, which user code reads as a symbolic `x.shape[i]` / `x.size`. Dtypes are
NumPy's, written out; no rule runs a kernel.
"""
from __future__ import annotations

import numpy as np

from runtime.ops.rules_common import (axis_index, dtype, is_weak, registrar, result_type, shape,
                                      static_error)
from runtime.core.tensor import Tensor
from runtime.ops.functions_rules import RULES as FUNCTION_RULES  # "pad": shaping_rules.py

RULES: dict = {}
_INTP = np.dtype(np.intp)
_F8 = np.dtype(np.float64)


rule = registrar(RULES)


def size_dim(v) -> int | None:
    """A dimension given as an argument: a Python int, or None for a symbolic one."""
    if isinstance(v, Tensor):
        if v.ndim != 0 or v.dtype.kind not in "biu":
            raise static_error(TypeError, f"a size must be an integer scalar, not {v!r}")
        return None
    if isinstance(v, (float, np.floating)):
        raise static_error(TypeError, f"'{type(v).__name__}' object cannot be interpreted "
                           "as an integer")
    d = int(v)
    if d < 0:
        raise static_error(ValueError, "negative dimensions are not allowed")
    return d


@rule("reshape_dynamic")
def reshape_dynamic_rule(op, inputs, attrs):
    x, *dims = inputs
    if sum(not isinstance(d, Tensor) and int(d) < 0 for d in dims) > 1:
        raise static_error(ValueError, "can only specify one unknown dimension")
    out = [size_dim(d) if isinstance(d, Tensor) or int(d) >= 0 else None for d in dims]
    return [(tuple(out), dtype(x))]


@rule("zeros", "ones", "empty")
def filled_rule(op, inputs, attrs):
    return [(tuple(size_dim(d) for d in inputs), np.dtype(attrs.get("dtype") or _F8))]


@rule("full")
def full_rule(op, inputs, attrs):
    fill, *dims = inputs
    out = tuple(size_dim(d) for d in dims)
    fs = shape(fill)
    if len(fs) > len(out) or any(f not in (1, None) and d is not None and f != d
                                 for f, d in zip(fs[::-1], out[::-1])):
        raise static_error(ValueError, f"could not broadcast input array from shape {fs} "
                           f"into shape {out}")
    requested = attrs.get("dtype")
    if requested is not None:
        return [(out, np.dtype(requested))]
    # np.full(shape, v) is np.array(v)'s dtype: a Python int is the default int
    return [(out, np.asarray(fill).dtype if not isinstance(fill, Tensor) else
             (result_type(fill) if not is_weak(fill) else dtype(fill)))]


def _arange_widened(x) -> np.dtype:
    """np.arange computes in the widest type of each argument's kind (an int32 bound
    gives int64, a float32 one float64; uint64 with the int64 start gives float64)."""
    dt = dtype(x)
    return np.result_type(dt, np.int64 if dt.kind in "biu" else np.float64
                          if dt.kind == "f" else np.complex128)


@rule("arange")
def arange_rule(op, inputs, attrs):
    start, stop, step = inputs
    requested = attrs.get("dtype")
    dt = np.dtype(requested) if requested is not None else np.result_type(
        np.int64, *(_arange_widened(x) for x in (start, stop, step) if x is not None))
    known = [x for x in (start, stop, step) if x is not None]
    if not any(isinstance(x, Tensor) for x in known):
        return [((len(np.arange(*known)),), dt)]  # all static: NumPy's own length
    return [((None,), dt)]


@rule("linspace")
def linspace_rule(op, inputs, attrs):
    start, stop, num = inputs
    for x in (start, stop):
        if shape(x) != ():
            raise static_error(TypeError, "np.linspace with array start/stop and a symbolic "
                               "num is not supported: give scalar start and stop")
    requested = attrs.get("dtype")
    dt = np.dtype(requested) if requested is not None else result_type(start, stop, 1.0)
    return [((size_dim(num),), dt)]


@rule("eye")
def eye_rule(op, inputs, attrs):
    n, m, _k = inputs
    rows = size_dim(n)
    cols = rows if m is None else size_dim(m)
    return [((rows, cols), np.dtype(attrs.get("dtype") or _F8))]


@rule("repeat_dynamic")
def repeat_dynamic_rule(op, inputs, attrs):
    x, _repeats = inputs
    axis = attrs.get("axis")
    shp = shape(x)
    if axis is None:
        return [((None,), dtype(x))]
    ax = axis % len(shp) if -len(shp) <= axis < len(shp) else None
    if ax is None:
        raise static_error(np.exceptions.AxisError,
                           f"axis {axis} is out of bounds for array of dimension {len(shp)}")
    return [(tuple(None if i == ax else d for i, d in enumerate(shp)), dtype(x))]


@rule("tile_dynamic")
def tile_dynamic_rule(op, inputs, attrs):
    x, *reps = inputs
    shp = shape(x)
    nd = max(len(shp), len(reps))
    shp = (1,) * (nd - len(shp)) + tuple(shp)
    reps = [1] * (nd - len(reps)) + list(reps)
    return [(tuple(None if isinstance(r, Tensor) or d is None else d * int(r)
                   for d, r in zip(shp, reps)), dtype(x))]


# -- data-dependent lengths -------------------------------------------------------------
@rule("nonzero")
def nonzero_rule(op, inputs, attrs):
    nd = len(shape(inputs[0]))
    if nd == 0:
        raise static_error(ValueError, "Calling nonzero on 0d arrays is not allowed. Use "
                           "np.atleast_1d(scalar).nonzero() instead.")
    return [((None,), _INTP)] * nd


@rule("flatnonzero")
def flatnonzero_rule(op, inputs, attrs):
    return [((None,), _INTP)]


@rule("argwhere")
def argwhere_rule(op, inputs, attrs):
    return [((None, len(shape(inputs[0]))), _INTP)]


@rule("unique")
def unique_rule(op, inputs, attrs):
    """np.unique: the sorted distinct values (with axis=: distinct slices along it), then
    the requested extras in NumPy's order (first indices, inverse - of the input's shape,
    or one per slice with axis= - and counts)."""
    x = inputs[0]
    shp, dt = tuple(shape(x)), dtype(x)
    axis = attrs.get("axis")
    n = (None,)
    if axis is None:
        out, inverse = [(n, dt)], shp
    else:
        ax = axis_index(axis, len(shp))
        if dt.kind == "O":
            raise static_error(TypeError, f"The axis argument to unique is not supported "
                               f"for dtype {dt}")
        length = shp[ax]
        rest = shp[:ax] + shp[ax + 1:]
        # slices of no elements are all equal: one distinct slice (none of none)
        if length == 0 or (0 in rest and length is not None):
            n = (min(length, 1),)
        out, inverse = [(shp[:ax] + n + shp[ax + 1:], dt)], (length,)
    if attrs.get("return_index"):
        out.append((n, _INTP))
    if attrs.get("return_inverse"):
        out.append((inverse, _INTP))
    if attrs.get("return_counts"):
        out.append((n, _INTP))
    return out


@rule("bincount")
def bincount_rule(op, inputs, attrs):
    x, weights = inputs
    if len(shape(x)) != 1:
        raise static_error(ValueError, "object too deep for desired array" if shape(x) else
                           "object of too small depth for desired array")
    if dtype(x).kind not in "biu":
        raise static_error(TypeError, "Cannot cast array data from dtype('"
                           f"{dtype(x)}') to dtype('int64') according to the rule 'safe'")
    empty = shape(x)[0] == 0  # NumPy: int64 zeros for an empty input, weights or not
    return [((None,), _INTP if weights is None or empty else _F8)]


@rule("pad_dynamic")
def pad_dynamic_rule(op, inputs, attrs):
    """np.pad(x, pad_width, constant_values=c) with a symbolic c or pad_width: c is cast
    to x's dtype; a symbolic pad_width leaves every dimension unknown."""
    x, widths, _c = inputs
    if isinstance(widths, Tensor):
        if widths.dtype.kind not in "iu":
            raise static_error(TypeError, "`pad_width` must be of integral type.")
        return [((None,) * len(shape(x)), dtype(x))]
    return FUNCTION_RULES["pad"](op, [x], {"pad_width": widths})


@rule("broadcast_to_dynamic")
def broadcast_to_dynamic_rule(op, inputs, attrs):
    """np.broadcast_to(x, shape) with symbolic entries in `shape` (unknown dims there)."""
    x, *dims = inputs
    out = tuple(size_dim(d) for d in dims)
    xs = shape(x)
    if len(xs) > len(out) or any(a not in (1, None) and b is not None and a != b
                                 for a, b in zip(xs[::-1], out[::-1])):
        raise static_error(ValueError, "cannot broadcast a non-scalar to a scalar array"
                           if not out else f"operands could not be broadcast together with "
                           f"remapped shapes [original->remapped]: {xs} and requested shape "
                           f"{out}")
    return [(out, dtype(x))]
