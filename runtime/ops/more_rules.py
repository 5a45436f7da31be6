"""Shape/dtype rules of the ops registered in more.py: take_along_axis, searching
(searchsorted, digitize), interp, convolve/correlate, order statistics (median,
percentile, quantile, partition, argpartition) and histogram.

Same contract as functions_rules.py: `RULES[name](op, inputs, attrs) -> [(shape, dtype)]`,
no kernel runs, static errors carry NumPy's exception type and the user's line, value
errors (unsorted bins, q outside [0, 1], an index out of range) are left to run time.
"""
from __future__ import annotations

import numpy as np

from runtime.ops.functions_rules import reduced_shape, rule
from runtime.ops.rules_common import (axes_tuple, axis_index, broadcast_shapes, dtype, is_weak,
                                      reject, result_type, shape, size, static_error,
                                      static_int)

_INTP = np.dtype(np.intp)
_F8 = np.dtype(np.float64)


@rule("take_along_axis")
def take_along_axis_rule(op, inputs, attrs):
    arr, idx = inputs
    return [(along_axis_shape(shape(arr), shape(idx), dtype(idx), attrs.get("axis", -1)),
             dtype(arr))]


def along_axis_shape(a: tuple, i: tuple, index_dtype, axis) -> tuple:
    """The shape `arr[_make_along_axis_idx(...)]` has (take/put_along_axis), with NumPy's
    errors for a bad index array."""
    if index_dtype.kind not in "iu":
        raise static_error(IndexError, "`indices` must be an integer array")
    if axis is None:
        if len(i) != 1:
            raise static_error(ValueError, "when axis=None, `indices` must have a single "
                               "dimension.")
        return i
    ax = axis_index(axis, len(a))
    if len(i) != len(a):
        raise static_error(ValueError, "`indices` and `arr` must have the same number of "
                           "dimensions")
    try:  # NumPy indexes with broadcast index arrays: a mismatch is an IndexError
        rest = broadcast_shapes(a[:ax] + (1,) + a[ax + 1:], i[:ax] + (1,) + i[ax + 1:])
    except ValueError:
        raise static_error(IndexError, f"shape mismatch: indexing arrays could not be "
                           f"broadcast together with shapes {i} {a}") from None
    return rest[:ax] + (i[ax],) + rest[ax + 1:]


@rule("put_along_axis")
def put_along_axis_rule(op, inputs, attrs):
    """The array put_along_axis leaves in `arr`: arr's shape and dtype (values are cast as
    `arr[index] = values` casts them). NumPy's checks: those of take_along_axis, then the
    values must broadcast to the indexed shape (leading size-1 dims of values dropped)."""
    arr, idx, values = inputs
    axis = attrs.get("axis")
    target = along_axis_shape(shape(arr), shape(idx), dtype(idx), axis)
    vs = shape(values)
    while len(vs) > len(target) and vs[0] == 1:
        vs = vs[1:]
    fits = len(vs) <= len(target) and all(
        v in (1, None) or t is None or v == t for v, t in zip(vs[::-1], target[::-1]))
    if not fits:
        raise static_error(ValueError, f"shape mismatch: value array of shape {shape(values)} "
                           f"could not be broadcast to indexing result of shape {target}")
    return [(shape(arr), dtype(arr))]


def _one_d(x, what="object") -> None:
    if len(shape(x)) != 1:
        raise static_error(ValueError, "object too deep for desired array" if shape(x) else
                           "object of too small depth for desired array")


@rule("searchsorted")
def searchsorted_rule(op, inputs, attrs):
    a, v = inputs
    reject("searchsorted", attrs, {"side", "sorter"})
    _one_d(a)
    if attrs.get("side", "left") not in ("left", "right"):
        raise static_error(ValueError, f"side must be 'left' or 'right' (got "
                           f"{attrs['side']!r})")
    return [(shape(v), _INTP)]


@rule("digitize")
def digitize_rule(op, inputs, attrs):
    x, bins = inputs
    if dtype(x).kind == "c":
        raise static_error(TypeError, "x may not be complex")
    _one_d(bins)
    return [(shape(x), _INTP)]


@rule("interp")
def interp_rule(op, inputs, attrs):
    x, xp, fp = inputs
    reject("interp", attrs, {"left", "right", "period"})
    if dtype(x).kind == "c" or dtype(xp).kind == "c":
        raise static_error(TypeError, "Cannot cast array data from dtype('complex128') to "
                           "dtype('float64') according to the rule 'safe'")
    for v in (xp, fp):
        if len(shape(v)) != 1:
            raise static_error(ValueError, "object too deep for desired array" if shape(v)
                               else "object of too small depth for desired array")
    n, m = shape(xp)[0], shape(fp)[0]
    if n is not None and m is not None and n != m:
        raise static_error(ValueError, "fp and xp are not of the same length.")
    if n == 0 or m == 0:
        raise static_error(ValueError, "array of sample points is empty")
    return [(shape(x), np.dtype(np.complex128) if dtype(fp).kind == "c" else _F8)]


def _convolve_rule(default_mode: str, needs_1d: bool):
    """np.convolve (mode 'full' by default) or np.correlate ('valid'; `needs_1d`: NumPy
    refuses a 0-d operand)."""
    def rule(op, inputs, attrs):
        return _convolve(op, inputs, attrs, default_mode, needs_1d)
    return rule


def _convolve(op, inputs, attrs, default_mode: str, needs_1d: bool):
    a, v = inputs
    reject(op.name, attrs, {"mode"})
    n, m = (size(shape(x)) for x in inputs)
    for x in inputs:  # NumPy flattens 0-d to 1-d but refuses anything deeper
        if len(shape(x)) > 1:
            raise static_error(ValueError, "object too deep for desired array")
    if n == 0 or m == 0:
        raise static_error(ValueError, f"{'a' if n == 0 else 'v'} cannot be empty")
    if needs_1d and None not in (n, m) and min(len(shape(a)), len(shape(v))) == 0:
        raise static_error(ValueError, "object of too small depth for desired array")
    mode = attrs.get("mode", default_mode)
    if mode not in ("full", "same", "valid"):
        raise static_error(ValueError, f"mode must be one of 'valid', 'same', or 'full' "
                           f"(got {mode!r})")
    dt = result_type(dtype(a), dtype(v))
    if n is None or m is None:
        out = None
    elif mode == "full":
        out = n + m - 1
    elif mode == "same":
        out = max(n, m)
    else:
        out = max(n, m) - min(n, m) + 1
    return [((out,), dt)]


rule("convolve")(_convolve_rule("full", False))
rule("correlate")(_convolve_rule("valid", True))


# -- order statistics -----------------------------------------------------------------
def quantile_dtype(a, q=None, percentile: bool = False) -> np.dtype:
    """NumPy's: the median of ints is float64; quantile(a, q) is result_type(a, q) with a
    Python q weak (so an int q keeps an int a's dtype); percentile divides q by 100 first."""
    dt = dtype(a)
    if dt.kind == "c" and q is not None:  # (the median of complex values is fine)
        raise static_error(TypeError, "a must be an array of real numbers")
    if dt.kind == "b" and q is not None:  # NumPy interpolates with `-` (not for booleans)
        raise static_error(TypeError, "numpy boolean subtract, the `-` operator, is not "
                           "supported, use the bitwise_xor, the `^` operator, or the "
                           "logical_xor function instead.")
    if q is None:
        return _F8 if dt.kind in "biu" else dt
    qd = q if is_weak(q) else dtype(q)
    if percentile:
        qd = 0.5 if is_weak(q) else _F8 if qd.kind in "biu" else qd
    return result_type(dt, qd)


def _reduce(a, attrs, name):
    shp = shape(a)
    axes = axes_tuple(attrs.get("axis"), len(shp))
    if size(tuple(shp[x] for x in axes)) == 0 and name != "median":
        raise static_error(IndexError, "index -1 is out of bounds for axis 0 with size 0")
    return reduced_shape(shp, axes, attrs.get("keepdims", False))


@rule("median")
def median_rule(op, inputs, attrs):
    reject("median", attrs, {"axis", "keepdims"}, {"overwrite_input": False})
    return [(_reduce(inputs[0], attrs, "median"), quantile_dtype(inputs[0]))]


def _quantile_rule(percent: bool):
    """np.percentile (`percent`: q in 0..100) or np.quantile."""
    def rule(op, inputs, attrs):
        return _quantile(op, inputs, attrs, percent)
    return rule


def _quantile(op, inputs, attrs, percent: bool):
    a, q = inputs
    reject(op.name, attrs, {"axis", "keepdims"}, {"overwrite_input": False, "method": "linear",
                                                 "weights": None})
    if dtype(q).kind not in "biuf":
        raise static_error(TypeError, "q must be a real number")
    if dtype(a).kind == "c":  # NumPy's order: complex values, an empty axis, booleans
        quantile_dtype(a, q)
    out = shape(q) + _reduce(a, attrs, op.name)
    return [(out, quantile_dtype(a, q, percent))]


rule("percentile")(_quantile_rule(True))
rule("quantile")(_quantile_rule(False))


def _partition_rule(indices: bool):
    """np.argpartition (`indices`: it gives positions) or np.partition."""
    def rule(op, inputs, attrs):
        return _partition(op, inputs, attrs, indices)
    return rule


def _partition(op, inputs, attrs, indices: bool):
    reject(op.name, attrs, {"kth", "axis"}, {"kind": "introselect", "order": None})
    shp = shape(inputs[0])
    kth = np.asarray(attrs["kth"])
    if kth.dtype.kind not in "iu":
        raise static_error(TypeError, "Partition index must be integer")
    if kth.ndim > 1:
        raise static_error(ValueError, "kth array must have dimension <= 1")
    axis = attrs.get("axis", -1)
    if axis is None or (not shp and indices):  # (0-d: as one element)
        shp = (size(shp),)
        axis = 0
    if not shp:
        raise static_error(np.exceptions.AxisError, "axis -1 is out of bounds for array of "
                           "dimension 0")
    n = shp[axis_index(axis, len(shp))]
    for k in kth.ravel().tolist():  # (an empty array takes any kth: unknown if a dim is)
        if n and size(shp) and not -n <= k < n:
            raise static_error(ValueError, f"kth(={k}) out of bounds ({n})")
    return [(shp, _INTP if indices else dtype(inputs[0]))]


rule("partition")(_partition_rule(False))
rule("argpartition")(_partition_rule(True))


@rule("histogram")
def histogram_rule(op, inputs, attrs):
    a, weights = inputs
    reject("histogram", attrs, {"bins", "range", "density"})
    bins = attrs.get("bins", 10)
    if isinstance(bins, str):
        raise static_error(TypeError, "np.histogram with a bin rule name (bins='auto', ...) "
                           "has a data-dependent number of bins; give an int or the edges")
    if np.ndim(bins) == 0:
        nbins = static_int(bins, "bins")
        if nbins < 1:
            raise static_error(ValueError, "`bins` must be positive, when an integer")
        rng = attrs.get("range")
        if dtype(a).kind in "biu":
            edge_dt = _F8
        else:
            edge_dt = result_type(*(rng or ()), dtype(a))
    else:
        edges = np.asarray(bins)
        if edges.ndim != 1:
            raise static_error(ValueError, "`bins` must be 1d, when an array")
        nbins, edge_dt = len(edges) - 1, edges.dtype
    if weights is not None and shape(weights) != shape(a) and None not in shape(a) + \
            shape(weights):
        raise static_error(ValueError, "weights should have the same shape as a.")
    if attrs.get("density"):
        hist_dt = _F8
    elif weights is not None:
        hist_dt = dtype(weights)
    else:
        hist_dt = _INTP
    return [((nbins,), hist_dt), ((nbins + 1,), edge_dt)]
