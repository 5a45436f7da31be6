"""Shape, joining, selection and linear-algebra functions as ONNX.

`reshape`/`transpose`/`squeeze`/`expand_dims`/`broadcast_to`/`ravel`/`flip`/`tile`/
`pad` (constant mode), `concatenate`/`stack`, `where`/`clip` (NaN propagates, as in
`np.clip`), `astype`/`copy`/`*_like`, `round` (half to even, like ONNX `Round`),
`cumsum`, `dot`/`outer`/`einsum`, `take`, `tril`/`triu`, `diff`. Operands are cast to
the node's result dtype first (NumPy's promotion is already in the node's dtype).
"""
from __future__ import annotations

import numpy as np

from runtime.onnx_export.elementwise import _extremum
from runtime.onnx_export.kernels import apply, where
from runtime.onnx_export.reductions import axes_of, reduce
from runtime.onnx_export.table import converter, converter_each

_I64 = np.int64


def _ints(values) -> np.ndarray:
    return np.asarray(values, dtype=_I64).reshape(-1)


def _rank(x) -> int:
    return len(x.shape) if hasattr(x, "shape") else np.ndim(x)


def _norm_axes(axes, ndim):
    axes = [axes] if isinstance(axes, (int, np.integer)) else list(axes)
    return [int(a) % ndim for a in axes]


@converter("reshape")
def _reshape(em, node):
    if node.attrs.get("order", "C") != "C":
        raise em.error("order='F' reshapes have no ONNX form")
    shape = node.attrs.get("shape", node.attrs.get("newshape"))
    shape = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    return [em.op("Reshape", [em.value(node.inputs[0]), em.const(_ints(shape))], allowzero=1)]


@converter("ravel")
def _ravel(em, node):
    if node.attrs.get("order", "C") != "C":
        raise em.error("order='F' has no ONNX form")
    return [em.op("Reshape", [em.value(node.inputs[0]), em.const(_ints([-1]))])]


@converter_each({"transpose": {"kind": "transpose"}, "swapaxes": {"kind": "swapaxes"},
                 "moveaxis": {"kind": "moveaxis"}})
def _transpose(em, node, *, kind: str):
    x = node.inputs[0]
    ndim = len(x.shape)
    a = node.attrs
    if kind == "transpose":
        perm = list(range(ndim))[::-1] if a.get("axes") is None else _norm_axes(a["axes"], ndim)
    elif kind == "swapaxes":
        perm = list(range(ndim))
        i, j = _norm_axes([a["axis1"], a["axis2"]], ndim)
        perm[i], perm[j] = perm[j], perm[i]
    else:
        src, dst = _norm_axes(a["source"], ndim), _norm_axes(a["destination"], ndim)
        rest = [d for d in range(ndim) if d not in src]
        perm = [0] * ndim
        for s, d in sorted(zip(dst, src)):
            rest.insert(s, d)
        perm = rest
    return [em.op("Transpose", [em.value(x)], perm=perm)]


@converter("squeeze")
def _squeeze(em, node):
    x = node.inputs[0]
    axis = node.attrs.get("axis")
    axes = [i for i, d in enumerate(x.shape) if d == 1] if axis is None else \
        _norm_axes(axis, len(x.shape))
    if not axes:
        return [em.op("Identity", [em.value(x)])]
    return [em.op("Squeeze", [em.value(x), em.const(_ints(axes))])]


@converter("expand_dims")
def _expand_dims(em, node):
    out_ndim = len(node.outputs[0].shape)
    axes = sorted(_norm_axes(node.attrs["axis"], out_ndim))
    return [em.op("Unsqueeze", [em.value(node.inputs[0]), em.const(_ints(axes))])]


@converter("atleast_1d", "atleast_2d", "atleast_3d")
def _atleast(em, node):
    x, ndim = node.inputs[0], len(node.inputs[0].shape)
    axes = {("atleast_1d", 0): [0], ("atleast_2d", 0): [0, 1], ("atleast_2d", 1): [0],
            ("atleast_3d", 0): [0, 1, 2], ("atleast_3d", 1): [0, 2],
            ("atleast_3d", 2): [2]}.get((node.op.name, ndim))
    if not axes:
        return [em.op("Identity", [em.value(x)])]
    return [em.op("Unsqueeze", [em.value(x), em.const(_ints(axes))])]


@converter("broadcast_to")
def _broadcast_to(em, node):
    shape = node.attrs["shape"]
    shape = [shape] if isinstance(shape, (int, np.integer)) else list(shape)
    return [em.op("Expand", [em.value(node.inputs[0]), em.const(_ints(shape))])]


def _joined(em, node):
    dtype = node.outputs[0].dtype
    return [em.value(x, dtype) for x in node.inputs]


@converter("concatenate")
def _concatenate(em, node):
    axis = node.attrs.get("axis", 0)
    ins = _joined(em, node)
    if axis is None:
        ins = [em.op("Reshape", [i, em.const(_ints([-1]))]) for i in ins]
        axis = 0
    return [em.op("Concat", ins, axis=int(axis) % len(node.outputs[0].shape))]


@converter("stack")
def _stack(em, node):
    out_ndim = len(node.outputs[0].shape)
    axis = int(node.attrs.get("axis", 0)) % out_ndim
    ins = [em.op("Unsqueeze", [i, em.const(_ints([axis]))]) for i in _joined(em, node)]
    return [em.op("Concat", ins, axis=axis)]


@converter("where")
def _where(em, node):
    if any(x is None for x in node.inputs):
        raise em.error("np.where with one argument (np.nonzero) is not exported")
    c, x, y = node.inputs
    dtype = node.outputs[0].dtype
    return [where(em, em.value(c, np.bool_), em.value(x, dtype), em.value(y, dtype), dtype)]


@converter("clip")
def _clip(em, node):
    x, lo, hi = node.inputs
    dtype = node.outputs[0].dtype
    out = em.value(x, dtype)
    if dtype.kind == "b":
        raise em.error("np.clip of bool arrays is not exported")
    if lo is not None:
        out = _extremum(em, "maximum", [out, em.value(lo, dtype)], dtype.kind, dtype)
    if hi is not None:
        out = _extremum(em, "minimum", [out, em.value(hi, dtype)], dtype.kind, dtype)
    return [out]


@converter("astype", "copy", "real", "asarray", "asarray_0d", "copy_0d")
def _astype(em, node):
    return [em.op("Identity", [em.value(node.inputs[0], node.outputs[0].dtype)])]


@converter("zeros_like", "ones_like", "empty_like", "full_like")
def _like(em, node):
    out = node.outputs[0]
    if node.attrs.get("shape") is not None:
        raise em.error("the shape= argument is not exported")
    fill = {"zeros_like": 0, "empty_like": 0, "ones_like": 1}.get(node.op.name)
    value = em.const(fill, out.dtype) if fill is not None else \
        em.value(node.inputs[1], out.dtype)
    return [em.op("Expand", [value, em.op("Shape", [em.value(node.inputs[0])])])]


@converter("round", "around")
def _round(em, node):
    x, out = node.inputs[0], node.outputs[0]
    decimals = int(node.attrs.get("decimals", 0) or 0)
    value = em.value(x, out.dtype)
    if out.dtype.kind in "iub":
        if decimals < 0:
            raise em.error("rounding integers to negative decimals is not exported")
        return [em.op("Identity", [value])]
    if decimals == 0:
        return [em.op("Round", [value])]
    scale = em.const(10.0 ** abs(decimals), out.dtype)
    if decimals > 0:
        return [em.op("Div", [em.op("Round", [em.op("Mul", [value, scale])]), scale])]
    return [em.op("Mul", [em.op("Round", [em.op("Div", [value, scale])]), scale])]


@converter("cumsum")
def _cumsum(em, node):
    x, out = node.inputs[0], node.outputs[0]
    value = em.value(x, out.dtype)
    axis = node.attrs.get("axis")
    if axis is None:
        value, axis = em.op("Reshape", [value, em.const(_ints([-1]))]), 0
    axis = int(axis) % max(len(out.shape), 1)
    return [apply(em, "CumSum", [value, em.const(np.asarray(axis, _I64))], out.dtype)]


@converter("flip")
def _flip(em, node):
    x = node.inputs[0]
    ndim = len(x.shape)
    axis = node.attrs.get("axis")
    axes = list(range(ndim)) if axis is None else _norm_axes(axis, ndim)
    n = len(axes)
    big = np.iinfo(_I64)
    return [em.op("Slice", [em.value(x), em.const(_ints([-1] * n)),
                            em.const(_ints([big.min] * n)), em.const(_ints(axes)),
                            em.const(_ints([-1] * n))])]


@converter_each({"dot": {"kind": "dot"}, "inner": {"kind": "inner"}, "vdot": {"kind": "vdot"}})
def _dot(em, node, *, kind: str):
    a, b = node.inputs
    out = node.outputs[0]
    na, nb = _rank(a), _rank(b)
    ins = [em.value(a, out.dtype), em.value(b, out.dtype)]
    if kind == "vdot":
        ins = [em.op("Reshape", [i, em.const(_ints([-1]))]) for i in ins]
    elif kind == "inner" and nb == 2:
        ins[1] = em.op("Transpose", [ins[1]], perm=[1, 0])
    elif kind == "inner" and nb > 2:
        raise em.error("np.inner of arrays with more than 2 dims is not exported")
    if na == 0 or nb == 0:
        return [apply(em, "Mul", ins, out.dtype)]
    if kind == "dot" and (na > 2 or nb > 2) and nb > 1:
        raise em.error("np.dot of N-d arrays (N > 2) is not np.matmul; use np.matmul or "
                       "np.tensordot")
    if out.dtype.kind == "b":
        raise em.error("np.dot of bool arrays is not exported")
    return [apply(em, "MatMul", ins, out.dtype)]


@converter("outer")
def _outer(em, node):
    a, b = node.inputs
    out = node.outputs[0]
    col = em.op("Reshape", [em.value(a, out.dtype), em.const(_ints([-1, 1]))])
    row = em.op("Reshape", [em.value(b, out.dtype), em.const(_ints([1, -1]))])
    return [apply(em, "And" if out.dtype.kind == "b" else "Mul", [col, row], out.dtype)]


@converter("einsum")
def _einsum(em, node):
    out = node.outputs[0]
    extra = set(node.attrs) - {"subscripts", "optimize"}
    if extra or "..." in node.attrs["subscripts"] or out.dtype.kind not in "fi":
        raise em.error("this np.einsum form (ellipsis, options or dtype) is not exported")
    ins = [em.value(x, out.dtype) for x in node.inputs]
    return [em.op("Einsum", ins, equation=node.attrs["subscripts"].replace(" ", ""))]


@converter("take")
def _take(em, node):
    x, idx = node.inputs
    if node.attrs.get("mode") not in (None, "raise"):
        raise em.error("np.take(mode=...) is not exported")
    axis = node.attrs.get("axis")
    value = em.value(x)
    if axis is None:
        value, axis = em.op("Reshape", [value, em.const(_ints([-1]))]), 0
    axis = int(axis) % max(len(x.shape), 1)
    return [em.op("Gather", [value, em.value(idx, _I64)], axis=axis)]


@converter_each({"tril": {"upper": False}, "triu": {"upper": True}})
def _tri(em, node, *, upper: bool):
    x = node.inputs[0]
    k = em.const(np.asarray(int(node.attrs.get("k", 0) or 0), _I64))
    return [em.op("Trilu", [em.value(x), k], upper=int(upper))]


@converter("tile")
def _tile(em, node):
    x = node.inputs[0]
    reps = node.attrs["reps"]
    reps = [reps] if isinstance(reps, (int, np.integer)) else list(reps)
    ndim = len(x.shape)
    value = em.value(x)
    if len(reps) > ndim:
        value = em.op("Unsqueeze", [value, em.const(_ints(range(len(reps) - ndim)))])
    reps = [1] * (ndim - len(reps)) + reps
    return [em.op("Tile", [value, em.const(_ints(reps))])]


@converter("pad")
def _pad(em, node):
    x, out = node.inputs[0], node.outputs[0]
    a = node.attrs
    if a.get("mode", "constant") != "constant":
        raise em.error(f"np.pad(mode={a.get('mode')!r}) is not exported (constant mode only)")
    ndim = len(x.shape)
    width = np.broadcast_to(np.asarray(a["pad_width"], _I64), (ndim, 2))
    fill = np.asarray(a.get("constant_values", 0))
    if fill.ndim:
        raise em.error("per-axis constant_values are not exported")
    pads = em.const(_ints(list(width[:, 0]) + list(width[:, 1])))
    return [em.op("Pad", [em.value(x), pads, em.const(fill.astype(out.dtype))], mode="constant")]


@converter("diff")
def _diff(em, node):
    x, out = node.inputs[0], node.outputs[0]
    a = node.attrs
    if a.get("prepend") is not None or a.get("append") is not None:
        raise em.error("np.diff(prepend=/append=) is not exported")
    ndim = len(x.shape)
    axis = int(a.get("axis", -1)) % ndim
    value = em.value(x)
    big = np.iinfo(_I64).max
    for _ in range(int(a.get("n", 1))):
        hi = em.op("Slice", [value, em.const(_ints([1])), em.const(_ints([big])),
                             em.const(_ints([axis]))])
        lo = em.op("Slice", [value, em.const(_ints([0])), em.const(_ints([-1])),
                             em.const(_ints([axis]))])
        value = em.op("Xor", [hi, lo]) if out.dtype.kind == "b" else \
            apply(em, "Sub", [hi, lo], out.dtype)
    return [value]


@converter("count_nonzero")
def _count_nonzero(em, node):
    x, out = node.inputs[0], node.outputs[0]
    axes = axes_of(em, node, len(x.shape))
    flags = em.cast(em.value(x, np.bool_), np.bool_, _I64)
    return [em.cast(reduce(em, "ReduceSum", flags, _I64, axes,
                           bool(node.attrs.get("keepdims", False))), _I64, out.dtype)]
