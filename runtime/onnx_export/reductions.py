"""Reductions (`np.sum`, `np.mean`, `np.max`, `np.argmax`, `np.std`, ...) as ONNX.

The input is cast to the node's result dtype first, as NumPy accumulates in it
(`np.sum` of int32 is int64, `np.mean` of ints is float64). `np.max`/`np.min` and
`np.argmax`/`np.argmin` give NaN (its first index) when a NaN is present, as NumPy
does; the `nan*` forms skip NaNs. `np.any`/`np.all` count truthy elements, so empty
inputs give NumPy's False/True. `initial=` and `where=` are refused.

Where ONNX Runtime differs from NumPy the export matches NumPy or refuses: a mean is a
sum divided by the run-time count (an empty axis gives NaN, not 0); an integer sum is
summed in 16-bit chunks so it wraps around like NumPy's instead of saturating; an integer
product is refused; max/min/argmax/argmin over an axis of unknown size are refused (NumPy
raises on an empty one, ONNX cannot raise).
"""
from __future__ import annotations

import numpy as np

from runtime.onnx_export.kernels import apply
from runtime.onnx_export.table import converter_each

# Each reduction's parameters: its ONNX op; `extremum`: max/min (raises on an empty axis,
# a NaN wins); `nan_fill`: the nan* forms skip NaNs by filling them with this value;
# `nan_mean`: nanmean divides the filled sum by the count of non-NaN values.
_REDUCTIONS = {
    "sum": dict(onnx_op="ReduceSum"), "nansum": dict(onnx_op="ReduceSum", nan_fill=0),
    "prod": dict(onnx_op="ReduceProd"), "mean": dict(onnx_op="ReduceMean"),
    "nanmean": dict(onnx_op="ReduceMean", nan_fill=0, nan_mean=True),
    "max": dict(onnx_op="ReduceMax", extremum=True),
    "amax": dict(onnx_op="ReduceMax", extremum=True),
    "nanmax": dict(onnx_op="ReduceMax", extremum=True, nan_fill=-np.inf),
    "min": dict(onnx_op="ReduceMin", extremum=True),
    "amin": dict(onnx_op="ReduceMin", extremum=True),
    "nanmin": dict(onnx_op="ReduceMin", extremum=True, nan_fill=np.inf),
}


def axes_of(em, node, ndim: int):
    axis = node.attrs.get("axis")
    if axis is None:
        return list(range(ndim))
    axes = list(axis) if isinstance(axis, (tuple, list)) else [axis]
    try:
        return sorted(int(a) % ndim if ndim else int(a) for a in axes)
    except (TypeError, ZeroDivisionError):
        raise em.error(f"axis={axis!r} is not a static axis") from None


def reduce(em, op: str, x: str, dtype, axes: list[int], keepdims: bool) -> str:
    if not axes:
        return x
    return apply(em, op, [x, em.const(np.asarray(axes, np.int64))], dtype,
                 keepdims=int(keepdims))


def _refuse_options(em, node, allowed=()):
    for k in ("initial", "where", "out", "correction", "mean"):
        if node.attrs.get(k) is not None and k not in allowed:
            raise em.error(f"the {k}= argument has no ONNX form in this exporter")


@converter_each(_REDUCTIONS)
def _reduction(em, node, *, onnx_op: str, extremum=False, nan_fill=None, nan_mean=False):
    _refuse_options(em, node)
    x, out = node.inputs[0], node.outputs[0]
    ndim, dtype = len(x.shape), out.dtype
    axes = axes_of(em, node, ndim)
    keep = bool(node.attrs.get("keepdims", False))
    work = dtype
    if extremum:
        if any(x.shape[a] == 0 for a in axes):
            raise em.error("a maximum/minimum over an empty axis raises in NumPy")
        _refuse_unknown_sizes(em, x, axes, "a maximum/minimum")
        work = x.dtype
    value = em.value(x, work if work.kind != "b" else np.int8)
    if work.kind == "b":
        work = np.dtype(np.int8)
    if nan_fill is not None and work.kind == "f":
        nan = em.op("IsNaN", [value])
        clean = em.op("Where", [nan, em.const(nan_fill, work), value])
        result = reduce(em, "ReduceSum" if nan_mean else onnx_op, clean, work, axes, keep)
        counts = reduce(em, "ReduceSum", em.cast(em.op("Not", [nan]), np.bool_, work), work,
                        axes, keep)
        if nan_mean:
            result = em.op("Div", [result, counts])
        elif extremum:  # an all-NaN slice gives NaN
            result = em.op("Where", [em.op("Equal", [counts, em.const(0, work)]),
                                     em.const(np.nan, work), result])
    elif onnx_op == "ReduceMean" and axes:  # ONNX Runtime gives 0 for an empty axis
        total = reduce(em, "ReduceSum", value, work, axes, keep)
        result = em.op("Div", [total, _count(em, value, work, axes)])  # 0/0: NaN, as NumPy
    elif onnx_op == "ReduceSum" and work.kind == "i" and axes:
        result = _wrapping_sum(em, value, work, axes, keep)
    else:
        if onnx_op == "ReduceProd" and work.kind == "i":
            raise em.error("an integer np.prod: ONNX Runtime saturates where NumPy wraps "
                           "around on overflow; compute it in float64 (np.prod(x, "
                           "dtype=np.float64)) if that is what you need")
        result = reduce(em, onnx_op, value, work, axes, keep)
        if extremum and nan_fill is None and work.kind == "f":
            any_nan = reduce(em, "ReduceMax", em.cast(em.op("IsNaN", [value]), np.bool_, np.int8),
                             np.int8, axes, keep)
            result = em.op("Where", [em.cast(any_nan, np.int8, np.bool_),
                                     em.const(np.nan, work), result])
    if not axes:
        result = em.op("Identity", [result])
    return [em.cast(result, work, dtype)]


def _refuse_unknown_sizes(em, x, axes, what: str) -> None:
    unknown = [a for a in axes if x.shape[a] is None]
    if unknown:
        raise em.error(f"{what} over axis {unknown[0]}, whose size is unknown at export: "
                       "NumPy raises when it is empty and ONNX cannot raise; give that "
                       "dimension a size in the TensorSpec")


def _count(em, value: str, dtype, axes: list[int]) -> str:
    """The number of elements reduced over `axes`, in `dtype` (from the run-time shape)."""
    shape = em.op("Shape", [value])
    sizes = em.op("Gather", [shape, em.const(np.asarray(axes, np.int64))])
    n = em.op("ReduceProd", [sizes, em.const(np.zeros(1, np.int64))], keepdims=0)
    return em.cast(n, np.int64, dtype)


_CHUNK_BITS = 16


def _wrapping_sum(em, value: str, dtype, axes: list[int], keep: bool) -> str:
    """An integer sum that wraps around on overflow as NumPy's does: ONNX Runtime
    accumulates integers through doubles and saturates. The value is split into 16-bit
    chunks (each chunk's sum is exact), and the chunk sums are recombined with wrapping
    integer Mul/Add."""
    if np.dtype(dtype).itemsize < 8:  # in int64, then wrapped by the cast back
        total = _wrapping_sum(em, em.cast(value, dtype, np.int64), np.dtype(np.int64), axes,
                              keep)
        return em.cast(total, np.int64, dtype)
    bits = 64
    base = em.const(1 << _CHUNK_BITS, dtype)
    rest, total = value, None
    for k in range(bits // _CHUNK_BITS):
        last = k == bits // _CHUNK_BITS - 1
        chunk = rest if last else em.op("Mod", [rest, base], fmod=0)  # in [0, 2**16)
        if not last:
            rest = em.op("Div", [em.op("Sub", [rest, chunk]), base])  # exact
        part = reduce(em, "ReduceSum", chunk, dtype, axes, keep)
        if k:
            part = em.op("Mul", [part, em.const(1 << (_CHUNK_BITS * k), dtype)])
        total = part if total is None else em.op("Add", [total, part])
    return total


@converter_each({"any": {"every": False}, "all": {"every": True}})
def _any_all(em, node, *, every: bool):
    _refuse_options(em, node)
    x = node.inputs[0]
    axes = axes_of(em, node, len(x.shape))
    keep = bool(node.attrs.get("keepdims", False))
    flags = em.value(x, np.bool_)
    if every:  # all(x) is not any(not x)
        flags = em.op("Not", [flags])
    count = reduce(em, "ReduceSum", em.cast(flags, np.bool_, np.int64), np.int64, axes, keep)
    hit = em.op("Greater", [count, em.const(0, np.int64)])
    return [em.op("Not", [hit]) if every else hit]


@converter_each({"std": {"root": True}, "var": {"root": False}})
def _moments(em, node, *, root: bool):
    _refuse_options(em, node)
    if node.attrs.get("dtype") is not None:
        raise em.error("dtype= of np.std/np.var is not exported")
    x, out = node.inputs[0], node.outputs[0]
    dtype = out.dtype
    axes = axes_of(em, node, len(x.shape))
    keep = bool(node.attrs.get("keepdims", False))
    value = em.value(x, dtype)
    mean = reduce(em, "ReduceMean", value, dtype, axes, True)
    d = em.op("Sub", [value, mean])
    total = reduce(em, "ReduceSum", em.op("Mul", [d, d]), dtype, axes, keep)
    shape = em.cast(em.op("Shape", [value]), np.int64, dtype)
    n = em.op("ReduceProd", [em.op("Gather", [shape, em.const(np.asarray(axes, np.int64))]),
                              em.const(np.zeros(1, np.int64))], keepdims=0) if axes \
        else em.const(1, dtype)
    ddof = em.const(node.attrs.get("ddof", 0) or 0, dtype)
    denom = em.op("Max", [em.op("Sub", [n, ddof]), em.const(0, dtype)])
    var = em.op("Div", [total, denom])
    return [em.op("Sqrt", [var]) if root else var]


@converter_each({"argmax": {"onnx_op": "ArgMax"}, "argmin": {"onnx_op": "ArgMin"}})
def _arg(em, node, *, onnx_op: str):
    x, out = node.inputs[0], node.outputs[0]
    axis, keep = node.attrs.get("axis"), bool(node.attrs.get("keepdims", False))
    if x.shape and any(d == 0 for d in x.shape):
        raise em.error("argmax/argmin of an empty array raises in NumPy")
    _refuse_unknown_sizes(em, x, list(range(len(x.shape))) if axis is None
                          else [int(axis) % max(len(x.shape), 1)], "argmax/argmin")
    value = em.value(x)
    dtype = x.dtype
    if dtype.kind == "b":
        value, dtype = em.cast(value, dtype, np.int8), np.dtype(np.int8)
    if axis is None:
        value = em.op("Reshape", [value, em.const(np.asarray([-1], np.int64))])
        ax = 0
    else:
        ax = int(axis) % max(len(x.shape), 1)
    idx = apply(em, onnx_op, [value], dtype, keep=False, axis=ax, keepdims=int(keep),
                select_last_index=0)
    if dtype.kind == "f":  # NumPy: the first NaN wins
        nan = em.cast(em.op("IsNaN", [value]), np.bool_, np.int8)
        first_nan = em.op("ArgMax", [nan], axis=ax, keepdims=int(keep), select_last_index=0)
        has_nan = em.op("ReduceMax", [nan, em.const(np.asarray([ax], np.int64))],
                        keepdims=int(keep))
        idx = em.op("Where", [em.cast(has_nan, np.int8, np.bool_), first_nan, idx])
    if axis is None and keep:
        idx = em.op("Reshape", [idx, em.const(np.ones(len(x.shape), np.int64))])
    return [em.cast(idx, np.int64, out.dtype)]
