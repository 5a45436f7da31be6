"""Batching rules of the common ops, attached to their records (`OpDef.batch`).

A rule is `rule(batcher, node, values, flags) -> (outputs, flags)` or None to decline
(the op then runs as a loop over the batch). `node` is the per-example node: its input
and output Tensors give the per-example shapes, dtypes and weak (Python-number) flags;
`values` are the batcher's values, batched ones with the batch on axis 0. Rules emit
NumPy calls through `batcher.bind`, so they run in the graph being traced.

Covered: elementwise ufuncs (every ufunc record, on first use), `where`, `clip`,
`astype` and other one-array elementwise functions; reductions; `matmul` / `dot` of
vectors and matrices; `reshape`, `broadcast_to`, `transpose`, `swapaxes`, `moveaxis`, `expand_dims`,
`squeeze`; basic indexing (ints, slices, None, ...) and its functional update;
`concatenate` / `stack`; cumulative sums and products.
"""
from __future__ import annotations

import numpy as np

from runtime.core.tensor import Tensor
from runtime.ops.exact_ints import EXACT_INT
from runtime.ops.functions import OPS
from runtime.ops.path_arith import PATH_ARITH
from runtime.ops.indexing import GETITEM, INDEX_UPDATE, Slot
from runtime.ops.indexing_rules import getitem_rule
from runtime.ops.ufuncs import PYTHON_NUMBER, ufunc_op
from runtime.transforms.batch_reductions import short_reduction
from runtime.transforms.batching import _LAZY_RULES, attach_batch


def rule(*names):
    """Attach the decorated function as the batching rule of the records so named."""
    def deco(fn):
        for name in names:
            attach_batch(OPS[name], fn)
        return fn
    return deco


def _ndim(t) -> int:
    return len(t.shape) if isinstance(t, Tensor) else np.ndim(t)


def _kind_rank(dtype) -> int:
    return "biufc".index(np.dtype(dtype).kind) if np.dtype(dtype).kind in "biufc" else -1


def _strong_dtype(node):
    """The dtype the typed (not Python-number) inputs promote to, or None."""
    typed = [t.dtype for t in node.inputs
             if (isinstance(t, Tensor) and not t.weak) or isinstance(t, (np.ndarray, np.generic))]
    return np.result_type(*typed) if typed else None


def _aligned(batcher, node, values, flags, ndim: int) -> list:
    """Batched inputs with size-1 axes after the batch axis up to `ndim` per-example axes
    (so they broadcast as they do per example), Python-number inputs that are batched cast
    to the typed inputs' dtype (NEP 50: they take the other operand's type)."""
    strong = _strong_dtype(node)
    out = []
    for v, f, t in zip(values, flags, node.inputs):
        if f:
            if isinstance(t, Tensor) and t.weak and strong is not None and \
                    0 <= _kind_rank(t.dtype) <= _kind_rank(strong) and t.dtype != strong:
                v = batcher.bind(OPS["astype"], v, dtype=strong)
            k = _ndim(t)
            if k < ndim:
                v = np.reshape(v, (-1,) + (1,) * (ndim - k) + _static(t.shape)) \
                    if _static(t.shape) is not None else np.expand_dims(
                        v, tuple(range(1, 1 + ndim - k)))
        out.append(v)
    return out


def _static(shape):
    return tuple(shape) if all(d is not None for d in shape) else None


def elementwise(batcher, node, values, flags):
    ndim = max(len(t.shape) for t in node.outputs)
    args = _aligned(batcher, node, values, flags, ndim)
    return batcher.bind_all(node.op, *args, **node.attrs), [True] * len(node.outputs)


def _ufunc_rule(op):
    kernel = op.kernel
    if isinstance(kernel, np.ufunc):
        if kernel.signature is None:
            return elementwise
        if kernel is np.matmul:
            return matmul
    return None


_LAZY_RULES.append(_ufunc_rule)


def python_number(batcher, node, values, flags):
    """A value standing for a Python number: batched, it stays the array it is (the
    rules cast batched Python-number inputs to their typed operands' dtype)."""
    return [values[0]], [True]


attach_batch(PYTHON_NUMBER, python_number)


def exact_int(batcher, node, values, flags):
    """Exact Python-int arithmetic (runtime/ops/exact_ints.py) on one int per example: its
    kernel takes arrays, checking the examples the region runs for (the mask) only."""
    if any(_ndim(t) for t in node.inputs):
        return None
    attrs = dict(node.attrs)
    extra = []
    if batcher.mask is not None:
        attrs["masked"], extra = True, [batcher.mask]
    out = batcher.bind(EXACT_INT, *values, *extra, **attrs)
    out.weak = True
    return [out], [True]


attach_batch(EXACT_INT, exact_int)


def path_arith(batcher, node, values, flags):
    """Python's or NumPy's arithmetic by the path each example took (runtime/ops/
    path_arith.py): per example, by design (one Python number at a time)."""
    return batcher.fallback(node, values, flags, note=False)


attach_batch(PATH_ARITH, path_arith)
rule("where", "clip", "astype", "copy", "real", "imag", "nan_to_num", "round", "around",
     "zeros_like", "ones_like", "empty_like", "full_like")(elementwise)


def _only_first(flags) -> bool:
    return flags[0] and not any(flags[1:])


def _reduction(flat: bool):
    """The rule of a reduction over `axis`; `flat`: with axis=None it reads the
    flattened array (argmax, cumsum: a batched one is reshaped to one row per example)."""
    def rule_fn(batcher, node, values, flags):
        return reduction(batcher, node, values, flags, flat)
    return rule_fn


def reduction(batcher, node, values, flags, flat: bool):
    if not _only_first(flags):
        return None
    short = short_reduction(batcher, node, values[0])  # a short float vector, by columns
    if short is not None:
        return [short], [True]
    x, k = values[0], _ndim(node.inputs[0])
    attrs = dict(node.attrs)
    axis = attrs.get("axis")
    if axis is None and flat:
        shape = _static(node.inputs[0].shape)
        if shape is None:
            return None
        x = np.reshape(x, (-1, int(np.prod(shape, dtype=np.int64))))
        attrs["axis"] = 1
    elif axis is None:
        attrs["axis"] = tuple(range(1, k + 1))
    elif isinstance(axis, tuple):
        attrs["axis"] = tuple(a % k + 1 for a in axis)
    else:
        attrs["axis"] = axis % k + 1 if k else axis
    return batcher.bind_all(node.op, x, *values[1:], **attrs), [True]


rule("sum", "mean", "prod", "max", "min", "amax", "amin", "any", "all", "std", "var",
     "nansum", "nanmean", "nanmax", "nanmin", "count_nonzero")(_reduction(False))
rule("argmax", "argmin", "cumsum", "cumprod")(_reduction(True))


def matmul(batcher, node, values, flags):
    """`a @ b` with either side batched, as one matmul: a batched vector becomes a one-row
    (one-column) matrix where NumPy would otherwise read the batch axis as rows."""
    (a, b), (fa, fb) = values[:2], flags[:2]
    na, nb = _ndim(node.inputs[0]), _ndim(node.inputs[1])
    if na == 0 or nb == 0 or len(values) > 2 or node.attrs:
        return None
    squeeze = []
    if fb and nb == 1:  # one column per example
        b, nb, squeeze = np.expand_dims(b, -1), 2, [-1]
    if fa and na == 1:  # one row per example (not one matrix: NumPy's kernels differ)
        a, na = np.expand_dims(a, 1), 2
        squeeze.append(-1 if squeeze or nb == 1 else -2)
    r = max(na, nb)
    if fa and na < r:  # the batch axis goes in front of the other side's own batch axes
        a = np.expand_dims(a, tuple(range(1, 1 + r - na)))
    if fb and nb < r:
        b = np.expand_dims(b, tuple(range(1, 1 + r - nb)))
    out = batcher.bind(ufunc_op(np.matmul), a, b)
    for axis in squeeze:
        out = np.squeeze(out, axis)
    return [out], [True]


@rule("dot")
def dot(batcher, node, values, flags):
    na, nb = _ndim(node.inputs[0]), _ndim(node.inputs[1])
    if not (1 <= na <= 2 and 1 <= nb <= 2) or len(values) != 2:
        return None
    return matmul(batcher, node, values, flags)


@rule("reshape")
def reshape(batcher, node, values, flags):
    if not _only_first(flags) or node.attrs.get("order", "C") != "C":
        return None
    shape = node.attrs.get("shape", node.attrs.get("newshape"))
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if -1 in shape:
        shape = _static(node.outputs[0].shape)
        if shape is None:
            return None
    lead = batcher.size if batcher.size is not None else -1
    return [np.reshape(values[0], (lead,) + shape)], [True]


@rule("broadcast_to")
def broadcast_to(batcher, node, values, flags):
    if not _only_first(flags) or batcher.size is None:
        return None
    shape = node.attrs["shape"]
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    (x,) = _aligned(batcher, node, values[:1], flags[:1], len(shape))
    return [np.broadcast_to(x, (batcher.size,) + shape)], [True]


@rule("transpose")
def transpose(batcher, node, values, flags):
    if not _only_first(flags):
        return None
    k = _ndim(node.inputs[0])
    axes = node.attrs.get("axes")
    axes = tuple(reversed(range(k))) if axes is None else tuple(a % k for a in axes)
    return [np.transpose(values[0], (0,) + tuple(a + 1 for a in axes))], [True]


@rule("swapaxes")
def swapaxes(batcher, node, values, flags):
    if not _only_first(flags):
        return None
    k = _ndim(node.inputs[0])
    a1, a2 = node.attrs["axis1"] % k + 1, node.attrs["axis2"] % k + 1
    return [np.swapaxes(values[0], a1, a2)], [True]


def _shift(axis, k):
    if isinstance(axis, tuple):
        return tuple(a % k + 1 for a in axis)
    return axis % k + 1


@rule("moveaxis")
def moveaxis(batcher, node, values, flags):
    if not _only_first(flags):
        return None
    k = _ndim(node.inputs[0])
    return [np.moveaxis(values[0], _shift(node.attrs["source"], k),
                        _shift(node.attrs["destination"], k))], [True]


@rule("expand_dims")
def expand_dims(batcher, node, values, flags):
    if not _only_first(flags):
        return None
    r = _ndim(node.outputs[0])
    axis = node.attrs["axis"]
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else axis
    return [np.expand_dims(values[0], _shift(axis, r))], [True]


@rule("squeeze")
def squeeze(batcher, node, values, flags):
    if not _only_first(flags):
        return None
    k = _ndim(node.inputs[0])
    axis = node.attrs.get("axis")
    if axis is None:
        shape = _static(node.inputs[0].shape)
        if shape is None:
            return None
        axis = tuple(i for i, d in enumerate(shape) if d == 1)
    axis = tuple(axis) if isinstance(axis, (tuple, list)) else axis
    return [np.squeeze(values[0], _shift(axis, k) if axis != () else ())], [True]


def _join(fn):
    """The rule of np.concatenate / np.stack (`fn`): the axis moves past the batch."""
    def rule_fn(batcher, node, values, flags):
        return join(batcher, node, values, flags, fn)
    return rule_fn


def join(batcher, node, values, flags, fn):
    axis = node.attrs.get("axis", 0)
    if axis is None or set(node.attrs) - {"axis"}:
        return None
    r = _ndim(node.outputs[0])
    arrays = [v if f else batcher.broadcast(v, _ndim(t))
              for v, f, t in zip(values, flags, node.inputs)]
    return [fn(arrays, axis=axis % r + 1)], [True]


rule("concatenate")(_join(np.concatenate))
rule("stack")(_join(np.stack))


def _basic(template, node, first_slot: int) -> tuple | None:
    """The index items if every one is basic (an int, slice, None, ..., a 0-d int);
    slot k is the node's input `first_slot + k`."""
    items = template if isinstance(template, tuple) else (template,)
    for item in items:
        if isinstance(item, Slot):
            t = node.inputs[first_slot + item.k]
            if _ndim(t) != 0 or np.dtype(t.dtype).kind not in "iu":
                return None
        elif isinstance(item, (bool, np.bool_)) or not (
                item is None or item is Ellipsis or isinstance(item, (int, np.integer, slice))):
            return None
    return items


def getitem(batcher, node, values, flags):
    if not _only_first(flags):
        return None
    items = _basic(node.attrs["index"], node, 1)
    if items is None:
        return None
    out = batcher.bind(GETITEM, values[0], *values[1:], index=(slice(None),) + items)
    return [out], [True]


def index_update(batcher, node, values, flags):
    """`x[index] = value` per example: the same index behind a full slice of the batch."""
    if any(flags[2:]):
        return None
    items = _basic(node.attrs["index"], node, 2)
    if items is None:
        return None
    x, value = values[:2]
    if not flags[0]:
        x = batcher.broadcast(x, _ndim(node.inputs[0]))
    if flags[1]:  # align the value's axes with the indexed region's
        region = getitem_rule(GETITEM, [node.inputs[0], *node.inputs[2:]],
                              {"index": node.attrs["index"]})[0][0]
        k = _ndim(node.inputs[1])
        if k < len(region):
            value = np.expand_dims(value, tuple(range(1, 1 + len(region) - k)))
    attrs = dict(node.attrs, index=(slice(None),) + items)
    return batcher.bind_all(INDEX_UPDATE, x, value, *values[2:], **attrs), [True]


attach_batch(GETITEM, getitem)
attach_batch(INDEX_UPDATE, index_update)
