"""Shape/dtype rules of the NumPy-function ops (functions.py), part 1: reductions,
elementwise-like functions and selection, products, comparisons, linear algebra.
The rules of the shape-manipulation ops (shaping.py) are in shaping_rules.py.

`RULES[name](op, inputs, attrs) -> [(shape, dtype)]`; `inputs` are the op's array
inputs (Tensors or constants, None for an omitted optional one) and `attrs` its static
keyword arguments. Dtypes are NumPy's rules written out (sum of a small int is the
platform int, mean of ints is float64, linalg works in at least float32); a rule never
runs a kernel. Value errors (a singular matrix, an index out of range) are left to run
time, so an op the outputs do not need never raises.
"""
from __future__ import annotations

import numpy as np

from runtime.ops.rules_common import (axes_tuple, axis_index, broadcast_into, broadcast_shapes,
                                      cast_error, check_square, dtype, linalg_dtype, reject,
                                      result_type, shape, size, registrar, static_error)
from runtime.ops.ufuncs_rules import resolve

RULES: dict = {}
_INTP = np.dtype(np.intp)
_BOOL = np.dtype(bool)
_F8 = np.dtype(np.float64)


rule = registrar(RULES)


def real_dtype(dt: np.dtype) -> np.dtype:
    """float32 for complex64 and so on; other dtypes unchanged."""
    return np.dtype(dt.char.lower()) if dt.kind == "c" else dt


# -- reductions -----------------------------------------------------------------------
def sum_dtype(dt: np.dtype, requested=None) -> np.dtype:
    """np.add.reduce's result: bool and small ints widen to the platform int."""
    if requested is not None:
        return np.dtype(requested)
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < _INTP.itemsize):
        return np.dtype(np.int_)
    if dt.kind == "u" and dt.itemsize < _INTP.itemsize:
        return np.dtype(np.uint)
    return dt


def _mean_dtype(dt, requested=None):
    if requested is not None:
        return np.dtype(requested)
    return _F8 if dt.kind in "biu" else dt


def _var_dtype(dt, requested=None):
    if requested is not None:
        return np.dtype(requested)
    return _F8 if dt.kind in "biu" else real_dtype(dt)


def _same_dtype(dt, requested=None):
    return dt


def _bool_dtype(dt, requested=None):
    return _BOOL


def _index_dtype(dt, requested=None):
    return _INTP


# Each reduction's own parameters: its result dtype, whether it has no identity (an
# empty axis raises), whether it gives positions along one axis (argmax), whether it
# ends in a square root (std), whether an inexact input needs an inexact dtype (nanmean).
REDUCTIONS = {
    "sum": dict(out=sum_dtype), "prod": dict(out=sum_dtype), "nansum": dict(out=sum_dtype),
    "mean": dict(out=_mean_dtype), "nanmean": dict(out=_mean_dtype, inexact=True),
    "std": dict(out=_var_dtype, root=True), "var": dict(out=_var_dtype),
    **{name: dict(out=_same_dtype, no_identity=True)
       for name in ("max", "min", "amax", "amin", "nanmax", "nanmin")},
    "any": dict(out=_bool_dtype), "all": dict(out=_bool_dtype),
    "argmax": dict(out=_index_dtype, no_identity=True, index=True),
    "argmin": dict(out=_index_dtype, no_identity=True, index=True),
    "count_nonzero": dict(out=_index_dtype),
}


def reduced_shape(shp: tuple, axes: tuple, keepdims) -> tuple:
    if keepdims:
        return tuple(1 if i in axes else d for i, d in enumerate(shp))
    return tuple(d for i, d in enumerate(shp) if i not in axes)


def _reduction_rule(name: str, out, no_identity=False, index=False, root=False,
                    inexact=False):
    """The rule of reduction `name`, bound to its parameters (see REDUCTIONS)."""
    def rule(op, inputs, attrs):
        return _reduction(inputs, attrs, name, out, no_identity, index, root, inexact)
    return rule


def _reduction(inputs, attrs, name, out, no_identity, index, root, inexact):
    x = inputs[0]
    reject(name, attrs, {"axis", "dtype", "keepdims", "initial", "where", "ddof", "correction",
                         "mean"})
    shp, dt = shape(x), dtype(x)
    axis = attrs.get("axis")
    if index and axis is not None:
        axes = (axis_index(axis, len(shp)),)
    else:
        axes = axes_tuple(axis, len(shp))
    if attrs.get("where") is not None:  # a mask must broadcast against the real shape
        broadcast_into(np.shape(attrs["where"]), shp, "where")
    if no_identity and "initial" not in attrs and 0 in [shp[a] for a in axes]:
        raise static_error(ValueError, f"zero-size array to reduction operation {name} which "
                           "has no identity")
    out_dt = out(dt, attrs.get("dtype"))
    if root and out_dt.kind in "biu":  # the final sqrt cannot go back to an int
        raise cast_error(np.sqrt, _F8, out_dt, 1)
    if inexact and dt.kind in "fc" and out_dt.kind not in "fc":
        raise static_error(TypeError, "If a is inexact, then dtype must be inexact")
    if index:
        if axis is None and not attrs.get("keepdims"):
            return [((), out_dt)]
    return [(reduced_shape(shp, axes, attrs.get("keepdims", False)), out_dt)]


for _name, _params in REDUCTIONS.items():
    rule(_name)(_reduction_rule(_name, **_params))


@rule("cumsum", "cumprod")
def cumulative_rule(op, inputs, attrs):
    x = inputs[0]
    shp = shape(x)
    dt = sum_dtype(dtype(x), attrs.get("dtype"))
    if attrs.get("axis") is None:
        return [((size(shp),), dt)]
    axis_index(attrs["axis"], len(shp))
    return [(shp, dt)]


@rule("trace")
def trace_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    diag = diagonal_shape(shp, attrs.get("offset", 0), attrs.get("axis1", 0),
                          attrs.get("axis2", 1))
    return [(diag[:-1], sum_dtype(dtype(inputs[0]), attrs.get("dtype")))]


def diagonal_shape(shp, offset, axis1, axis2) -> tuple:
    if len(shp) < 2:
        raise static_error(ValueError, "diag requires an array of at least two dimensions")
    a1, a2 = axis_index(axis1, len(shp)), axis_index(axis2, len(shp))
    if a1 == a2:
        raise static_error(ValueError, "axis1 and axis2 cannot be the same")
    d1, d2 = shp[a1], shp[a2]
    offset = int(offset)
    if offset >= 0:
        d2 = None if d2 is None else d2 - offset
    else:
        d1 = None if d1 is None else d1 + offset
    n = None if d1 is None or d2 is None else max(0, min(d1, d2))
    if n is None and ((d1 is not None and d1 <= 0) or (d2 is not None and d2 <= 0)):
        n = 0
    return tuple(d for i, d in enumerate(shp) if i not in (a1, a2)) + (n,)


@rule("diagonal")
def diagonal_rule(op, inputs, attrs):
    shp = diagonal_shape(shape(inputs[0]), attrs.get("offset", 0), attrs.get("axis1", 0),
                         attrs.get("axis2", 1))
    return [(shp, dtype(inputs[0]))]


# -- elementwise-like and selection ---------------------------------------------------
@rule("where")
def where_rule(op, inputs, attrs):
    if len([x for x in inputs if x is not None]) != 3:
        raise static_error(TypeError, "np.where(condition) with one argument has a "
                           "data-dependent shape and is not supported in graphs; use "
                           "np.where(condition, x, y)")
    c, x, y = inputs
    dt = result_type(x, y)
    return [(broadcast_shapes(shape(c), shape(x), shape(y)), dt)]


@rule("clip")
def clip_rule(op, inputs, attrs):
    a, lo, hi = inputs
    reject("clip", attrs, {"dtype", "casting"})
    if lo is None and hi is None:
        ufunc, operands = np.positive, [a]
    elif lo is None:
        ufunc, operands = np.minimum, [a, hi]
    elif hi is None:
        ufunc, operands = np.maximum, [a, lo]
    else:
        ufunc, operands = np._core.umath.clip, [a, lo, hi]
    dt = resolve(ufunc, operands, attrs)[-1]
    return [(broadcast_shapes(*(shape(v) for v in operands)), dt)]


@rule("round", "around")
def round_rule(op, inputs, attrs):
    dt, shp = dtype(inputs[0]), shape(inputs[0])
    if dt.kind == "b":  # NumPy rounds booleans as float16, unless it must scale them
        if attrs.get("decimals", 0) != 0:
            raise cast_error(np.multiply, _F8, dt, 2)
        return [(shp, np.dtype(np.float16))]
    return [(shp, dt)]


@rule("copy", "nan_to_num", "flip")
def same_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    if attrs.get("axis") is not None:
        axes_tuple(attrs["axis"], len(shp))
    return [(shp, dtype(inputs[0]))]


@rule("sort")
def sort_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    if attrs.get("axis", -1) is None:
        return [((size(shp),), dtype(inputs[0]))]
    axes_tuple(attrs.get("axis", -1), len(shp))
    return [(shp, dtype(inputs[0]))]


@rule("roll")
def roll_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    if attrs.get("axis") is not None:
        axes_tuple(attrs["axis"], len(shp), allow_repeats=True)
    if isinstance(attrs.get("axis"), tuple) and isinstance(attrs.get("shift"), tuple):
        if len(attrs["axis"]) != len(attrs["shift"]) and 1 not in (len(attrs["axis"]),
                                                                    len(attrs["shift"])):
            raise static_error(ValueError, "'shift' and 'axis' should be scalars or 1D "
                               "sequences")
    return [(shp, dtype(inputs[0]))]


@rule("argsort")
def argsort_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    if attrs.get("axis", -1) is None:
        return [((size(shp),), _INTP)]
    axis_index(attrs.get("axis", -1), len(shp))
    return [(shp, _INTP)]


@rule("real", "imag")
def real_rule(op, inputs, attrs):
    return [(shape(inputs[0]), real_dtype(dtype(inputs[0])))]


def _like_shape(inputs, attrs) -> tuple:
    shp = attrs.get("shape")
    return shape(inputs[0]) if shp is None else tuple(np.atleast_1d(shp).tolist()) \
        if not isinstance(shp, tuple) else shp


@rule("zeros_like", "ones_like", "empty_like")
def like_rule(op, inputs, attrs):
    return [(tuple(_like_shape(inputs, attrs)), dtype(inputs[0]) if attrs.get("dtype") is None
             else np.dtype(attrs["dtype"]))]


@rule("full_like")
def full_like_rule(op, inputs, attrs):
    broadcast_into(shape(inputs[1]), _like_shape(inputs, attrs))  # the fill value fits
    return like_rule(op, inputs, attrs)


@rule("astype")
def astype_rule(op, inputs, attrs):
    return [(shape(inputs[0]), np.dtype(attrs["dtype"]))]


@rule("take")
def take_rule(op, inputs, attrs):
    a, idx = inputs
    shp = shape(a)
    ax = None if attrs.get("axis") is None else axis_index(attrs["axis"], len(shp))
    if dtype(idx).kind not in "iub":
        raise static_error(TypeError, f"Cannot cast array data from {dtype(idx)!r} to "
                           f"{_INTP!r} according to the rule 'safe'")
    if ax is None:
        return [(shape(idx), dtype(a))]
    return [(shp[:ax] + shape(idx) + shp[ax + 1:], dtype(a))]


@rule("isclose")
def isclose_rule(op, inputs, attrs):
    return [(broadcast_shapes(shape(inputs[0]), shape(inputs[1])), _BOOL)]


@rule("allclose")
def allclose_rule(op, inputs, attrs):
    broadcast_shapes(shape(inputs[0]), shape(inputs[1]))
    return [((), _BOOL)]


@rule("array_equal")
def array_equal_rule(op, inputs, attrs):
    return [((), _BOOL)]


# -- products -------------------------------------------------------------------------
def _mismatch(a, b, i, j):
    raise static_error(ValueError, f"shapes {tuple(a)} and {tuple(b)} not aligned: "
                       f"{a[i]} (dim {i % len(a)}) != {b[j]} (dim {j % len(b)})")


def _agree(a, b, i, j) -> None:
    if a[i] is not None and b[j] is not None and a[i] != b[j]:
        _mismatch(a, b, i, j)


def _strong(inputs) -> list:
    """Products convert Python numbers to arrays first: no weak scalars (NEP 50) there."""
    return [dtype(x) for x in inputs]


@rule("dot")
def dot_rule(op, inputs, attrs):
    a, b = (shape(x) for x in inputs)
    dt = result_type(*_strong(inputs))
    if not a or not b:
        return [(broadcast_shapes(a, b), resolve(np.multiply, _strong(inputs), {})[-1])]
    j = -2 if len(b) >= 2 else -1
    _agree(a, b, -1, j)
    return [(a[:-1] + b[:-2] + b[-1:] if len(b) >= 2 else a[:-1], dt)]


@rule("vdot")
def vdot_rule(op, inputs, attrs):
    n, m = (size(shape(x)) for x in inputs)
    if n is not None and m is not None and n != m:
        raise static_error(ValueError, "cannot reshape array: vdot operands have different "
                           f"sizes {n} and {m}")
    return [((), result_type(*_strong(inputs)))]


@rule("inner")
def inner_rule(op, inputs, attrs):
    a, b = (shape(x) for x in inputs)
    if not a or not b:
        return [(broadcast_shapes(a, b), resolve(np.multiply, _strong(inputs), {})[-1])]
    _agree(a, b, -1, -1)
    return [(a[:-1] + b[:-1], result_type(*_strong(inputs)))]


@rule("outer")
def outer_rule(op, inputs, attrs):
    return [((size(shape(inputs[0])), size(shape(inputs[1]))),
             resolve(np.multiply, _strong(inputs), {})[-1])]


@rule("tensordot")
def tensordot_rule(op, inputs, attrs):
    a, b = (shape(x) for x in inputs)
    axes = attrs.get("axes", 2)
    if isinstance(axes, (tuple, list)):  # written after NumPy's own checks, in its order
        ax_a, ax_b = ([x] if not isinstance(x, (tuple, list)) else list(x) for x in axes)
    else:
        n = int(axes)
        ax_a, ax_b = list(range(-n, 0)), list(range(0, n))
    if len(set(ax_a)) != len(ax_a) or len(set(ax_b)) != len(ax_b):
        raise static_error(ValueError, "duplicate axes are not allowed in tensordot")
    equal = len(ax_a) == len(ax_b)
    if equal:
        for k in range(len(ax_a)):
            try:
                da, db = a[ax_a[k]], b[ax_b[k]]
            except IndexError:
                raise static_error(IndexError, "tuple index out of range") from None
            if da is not None and db is not None and da != db:
                equal = False
                break
            ax_a[k] %= len(a)
            ax_b[k] %= len(b)
    if not equal:
        raise static_error(ValueError, "shape-mismatch for sum")
    out = tuple(d for i, d in enumerate(a) if i not in ax_a) + \
        tuple(d for j, d in enumerate(b) if j not in ax_b)
    return [(out, result_type(*_strong(inputs)))]


@rule("cross")
def cross_rule(op, inputs, attrs):
    reject("cross", attrs, {"axisa", "axisb", "axisc", "axis"})
    a, b = (shape(x) for x in inputs)
    if attrs.get("axis") is not None:
        attrs = dict(attrs, axisa=attrs["axis"], axisb=attrs["axis"], axisc=attrs["axis"])
    ia = axis_index(attrs.get("axisa", -1), len(a)) if a else None
    ib = axis_index(attrs.get("axisb", -1), len(b)) if b else None
    if ia is None or ib is None:
        raise static_error(np.exceptions.AxisError, "axis -1 is out of bounds for array of "
                           "dimension 0")
    na, nb = a[ia], b[ib]
    for n in (na, nb):
        if n is not None and n not in (2, 3):
            raise static_error(ValueError, "incompatible dimensions for cross product\n"
                               "(dimension must be 2 or 3)")
    rest = broadcast_shapes(a[:ia] + a[ia + 1:], b[:ib] + b[ib + 1:])
    dt = resolve(np.multiply, _strong(inputs), {})[-1]
    if na == 2 and nb == 2:
        return [(rest, dt)]
    if na is None or nb is None:
        raise static_error(ValueError, "np.cross: the length of the vector axis is unknown while "
                           "tracing, and the result's shape depends on it (2 or 3); give it a "
                           "fixed size")
    ic = axis_index(attrs.get("axisc", -1), len(rest) + 1)
    return [(rest[:ic] + (3,) + rest[ic:], dt)]


# -- linear algebra -------------------------------------------------------------------
@rule("inv")
def inv_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    check_square(shp)
    n = shp[-1] if shp[-1] is not None else shp[-2]
    return [(shp[:-2] + (n, n), linalg_dtype(inputs[0]))]


@rule("det")
def det_rule(op, inputs, attrs):
    shp = shape(inputs[0])
    check_square(shp)
    return [(shp[:-2], linalg_dtype(inputs[0]))]


@rule("solve")
def solve_rule(op, inputs, attrs):
    a, b = (shape(x) for x in inputs)
    check_square(a)
    m = a[-1] if a[-1] is not None else a[-2]
    dt = linalg_dtype(*inputs)
    if len(b) == 1:
        if m is not None and b[0] is not None and b[0] != m:
            raise static_error(ValueError, "solve1: Input operand 1 has a mismatch in its core "
                               f"dimension 0, with gufunc signature (m,m),(m)->(m) (size {b[0]} "
                               f"is different from {m})")
        return [(a[:-2] + (m if m is not None else b[0],), dt)]
    if not b:
        raise static_error(ValueError, "solve: Input operand 1 does not have enough dimensions")
    if m is not None and b[-2] is not None and b[-2] != m:
        raise static_error(ValueError, "solve: Input operand 1 has a mismatch in its core "
                           f"dimension 0, with gufunc signature (m,m),(m,n)->(m,n) (size "
                           f"{b[-2]} is different from {m})")
    batch = broadcast_shapes(a[:-2], b[:-2])
    return [(batch + (m if m is not None else b[-2], b[-1]), dt)]


@rule("norm")
def norm_rule(op, inputs, attrs):
    """np.linalg.norm, case by case as NumPy computes it (always a real result)."""
    x = inputs[0]
    shp, dt = shape(x), dtype(x)
    ord_, axis, keep = attrs.get("ord"), attrs.get("axis"), attrs.get("keepdims", False)
    out_dt = real_dtype(dt) if dt.kind in "fc" else _F8
    nd = len(shp)
    if axis is None and (ord_ is None or (ord_ in ("f", "fro") and nd == 2)
                         or (ord_ == 2 and nd == 1)):
        return [((1,) * nd if keep else (), out_dt)]
    axes = tuple(range(nd)) if axis is None else \
        tuple(axis) if isinstance(axis, tuple) else (axis,)
    if len(axes) == 1:
        axes = (axis_index(axes[0], nd),)
        if isinstance(ord_, str):
            raise static_error(ValueError, f"Invalid norm order '{ord_}' for vectors")
    elif len(axes) == 2:
        axes = (axis_index(axes[0], nd), axis_index(axes[1], nd))
        if axes[0] == axes[1]:
            raise static_error(ValueError, "Duplicate axes given.")
        if ord_ in (2, -2, "nuc"):  # through the SVD: linalg dtypes only
            out_dt = real_dtype(linalg_dtype(np.dtype(out_dt)))
        elif ord_ not in (1, -1, np.inf, -np.inf, None, "fro", "f"):
            raise static_error(ValueError, "Invalid norm order for matrices.")
    else:
        raise static_error(ValueError, "Improper number of dimensions to norm.")
    return [(reduced_shape(shp, axes, keep), out_dt)]
