"""Indexing (`x[i]`, `x[1:, None, ::-1]`, `x[idx]`, `x[mask]`) and index updates as ONNX.

Basic indices become one `Slice` (static or symbolic bounds, Python's clamping and
negative steps), `Gather` per integer (which drops the axis) and `Unsqueeze` for
`None`. One integer-array index with slices around it is a `Gather` on its axis (NumPy
puts the result dims at the same place); a boolean mask over the leading dims is a
`Compress` of those dims flattened. Other advanced forms are refused.
Updates (`x[idx] = v`, `np.add.at`) index an iota of x's flat positions with the very
same index, then `ScatterElements` the broadcast values into the flattened x
(reduction "add" for `mode="add"`, which accumulates repeated indices as `np.add.at`).
"""
from __future__ import annotations

import numpy as np

from runtime.onnx_export.table import converter
from runtime.core.tensor import Tensor

_I64 = np.int64
_BIG = np.iinfo(_I64)


def _is_slot(t) -> bool:
    return type(t).__name__ == "Slot"


def _dtype(x):
    return x.dtype if isinstance(x, Tensor) else np.asarray(x).dtype


def _ndim(x):
    return len(x.shape) if isinstance(x, Tensor) else np.ndim(x)


def _scalar_i64(em, v):
    return em.op("Reshape", [em.value(v, _I64), em.const(np.asarray([1], _I64))])


def index(em, value: str, ndim: int, template, dynamic: list) -> str:
    """`value[template]` (a tensor of rank `ndim`), the slots filled from `dynamic`."""
    items = list(template) if isinstance(template, tuple) else [template]
    arrays = [t for t in items if _is_slot(t) and (_ndim(dynamic[t.k]) > 0 or
                                                   _dtype(dynamic[t.k]).kind == "b")]
    if arrays:
        return _advanced(em, value, ndim, items, dynamic)
    consumed = sum(1 for t in items if t is not None and t is not Ellipsis)
    if Ellipsis in items:
        at = items.index(Ellipsis)
        items[at:at + 1] = [slice(None)] * (ndim - consumed)
    items += [slice(None)] * (ndim - sum(1 for t in items if t is not None))
    starts, ends, axes, steps, gathers, news = [], [], [], [], [], []
    axis = out_axis = 0
    for t in items:
        if t is None:
            news.append(out_axis)
            out_axis += 1
            continue
        if isinstance(t, slice):
            if t != slice(None):
                step = 1 if t.step is None else t.step
                if _is_slot(step) or step == 0:
                    raise em.error("a symbolic or zero slice step is not exported")
                lo_default, hi_default = (0, _BIG.max) if step > 0 else (_BIG.max, _BIG.min)
                starts.append(lo_default if t.start is None else t.start)
                ends.append(hi_default if t.stop is None else t.stop)
                axes.append(axis)
                steps.append(step)
            out_axis += 1
        else:  # an int or a symbolic integer scalar
            gathers.append((axis, t))
        axis += 1
    if axes:
        value = em.op("Slice", [value, _bounds(em, starts, dynamic), _bounds(em, ends, dynamic),
                                em.const(np.asarray(axes, _I64)),
                                em.const(np.asarray(steps, _I64))])
    for ax, t in reversed(gathers):
        i = em.value(dynamic[t.k], _I64) if _is_slot(t) else em.const(np.asarray(t, _I64))
        value = em.op("Gather", [value, i], axis=ax)
    if news:
        value = em.op("Unsqueeze", [value, em.const(np.asarray(news, _I64))])
    return value


def _bounds(em, parts, dynamic) -> str:
    if not any(_is_slot(p) for p in parts):
        return em.const(np.asarray(parts, _I64))
    pieces = [_scalar_i64(em, dynamic[p.k]) if _is_slot(p) else em.const(np.asarray([p], _I64))
              for p in parts]
    return em.op("Concat", pieces, axis=0)


def _advanced(em, value, ndim, items, dynamic):
    if len(items) == 1 and _is_slot(items[0]) and _dtype(dynamic[items[0].k]).kind == "b":
        mask = dynamic[items[0].k]
        k = _ndim(mask)
        flags = em.op("Reshape", [em.value(mask, np.bool_), em.const(np.asarray([-1], _I64))])
        rest = em.op("Slice", [em.op("Shape", [value]), em.const(np.asarray([k], _I64)),
                               em.const(np.asarray([_BIG.max], _I64))])
        shape = em.op("Concat", [em.const(np.asarray([-1], _I64)), rest], axis=0)
        return em.op("Compress", [em.op("Reshape", [value, shape]), flags], axis=0)
    if Ellipsis in items or None in items:
        raise em.error("advanced indexing together with None/... is not exported")
    slots = [i for i, t in enumerate(items) if _is_slot(t)]
    plain = [t for i, t in enumerate(items) if i not in slots]
    idx = dynamic[items[slots[0]].k] if len(slots) == 1 else None
    if idx is None or not all(isinstance(t, slice) and t == slice(None) for t in plain) \
            or _dtype(idx).kind == "b":
        raise em.error("this advanced index (several index arrays, an array with integers or "
                       "slices with bounds, or a mask not on the leading dims) is not exported; "
                       "index in two steps")
    return em.op("Gather", [value, em.value(idx, _I64)], axis=slots[0])


@converter("getitem")
def _getitem(em, node):
    x, *dynamic = node.inputs
    return [index(em, em.value(x), len(x.shape), node.attrs["index"], dynamic)]


@converter("index_update")
def _index_update(em, node):
    x, v, *dynamic = node.inputs
    out = node.outputs[0]
    data = em.value(x, out.dtype)
    shape = em.op("Shape", [data])
    flat_len = em.op("ReduceProd", [shape], keepdims=1)
    iota = em.op("Range", [em.const(np.asarray(0, _I64)),
                           em.op("Squeeze", [flat_len, em.const(np.asarray([0], _I64))]),
                           em.const(np.asarray(1, _I64))])
    positions = index(em, em.op("Reshape", [iota, shape]), len(x.shape), node.attrs["index"],
                      dynamic)
    flat_pos = em.op("Reshape", [positions, em.const(np.asarray([-1], _I64))])
    values = em.op("Expand", [em.value(v, out.dtype), em.op("Shape", [positions])])
    flat_values = em.op("Reshape", [values, em.const(np.asarray([-1], _I64))])
    flat = em.op("Reshape", [data, em.const(np.asarray([-1], _I64))])
    kw = {"reduction": "add"} if node.attrs["mode"] == "add" else {}
    if kw and out.dtype.kind == "b":
        raise em.error("np.add.at on bool arrays is not exported")
    scattered = em.op("ScatterElements", [flat, flat_pos, flat_values], axis=0, **kw)
    return [em.op("Reshape", [scattered, shape])]
