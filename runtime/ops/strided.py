"""Memory layout of symbolic arrays: `x.strides` and `np.lib.stride_tricks.as_strided`.

The executor is generated Python handed the caller's real arrays, so an op whose kernel
is NumPy's own `as_strided` (or reads `x.strides`) gives exactly eager NumPy's result
when the array reaching it is laid out as eager NumPy would lay it out. Where that holds
is decided while tracing (`layout_unknown`), by walking back from the array:

- a graph argument: the caller's array as passed (calls neither copy nor reorder it);
- an op whose record says `layout="C"` (always a new C-ordered array) or
  `layout="numpy"` (NumPy's own kernel: ufuncs, basic indexing, transposes, reshapes),
  whose array inputs are known in turn;
- a constant: a C-contiguous one (the trace keeps a C-ordered copy).

Anything else (a value carried into a symbolic `if` / loop, a write's result, an op
built from other ops) has a layout the graph does not know: a clear error names what
made it and the fix. The ops reading layouts are marked `reads_layout`, which keeps every
layout of their graph as eager NumPy's (runtime/passes/memory_order.py: no algebraic
rewrites, no buffer reuse, no broadcast constants, no jit regions).

- `x.strides`: a tuple of Python ints when the op that made `x` fixes its layout
  (`layout="C"`) and its shape is known; else int64 scalars read when the graph runs (op
  "stride"), usable as as_strided's strides.
- `as_strided(x, shape, strides, subok, writeable)`: op "as_strided", a view of the real
  array (shape static, strides static or run-time). Writes through it are refused
  (runtime/state/view_recipes.py), as NumPy refuses them with `writeable=False`. Its
  gradient adds each element's cotangent into the element of `x` it reads (np.add.at:
  overlapping windows add up); a view reading memory outside `x`'s elements has none.
"""
from __future__ import annotations

import operator
from typing import Any

import numpy as np

from runtime.core import tracing
from runtime.core.errors import where
from runtime.core.registry import OpDef, bind
from runtime.core.protocol import TensorProtocol
from runtime.core.tensor import Tensor
from runtime.core.tensor_layout import LayoutHooks
from runtime.ops.functions import OPS, TABLE, resolve_variables
from runtime.ops.indexing import GETITEM, is_basic_index
from runtime.ops.rules_common import static_error

_INT64 = np.dtype(np.int64)
as_strided_numpy = np.lib.stride_tricks.as_strided


# -- the ops -------------------------------------------------------------------------------
def _stride_kernel(x, *, axis):
    return np.int64(np.asarray(x).strides[axis])


STRIDE = OpDef("stride", _stride_kernel, lambda op, ins, attrs: [((), _INT64)],
               reads_layout=True)


def _fill(template: tuple, dynamic) -> tuple:
    values = iter(dynamic)
    return tuple(int(next(values)) if s is None else s for s in template)


def _as_strided_kernel(x, *dynamic, shape, strides, writeable):
    return as_strided_numpy(x, shape, _fill(strides, dynamic), writeable=writeable)


def _as_strided_rule(op, ins, attrs):
    return [(tuple(attrs["shape"]), ins[0].dtype if isinstance(ins[0], Tensor)
             else np.asarray(ins[0]).dtype)]


def _element_offsets(shape, strides) -> np.ndarray:
    """The byte offset of every element of a (shape, strides) view, in C order."""
    offsets = np.zeros((), np.int64)
    for n, s in zip(shape, strides):
        offsets = offsets[..., None] + np.arange(n, dtype=np.int64) * s
    return offsets.reshape(-1)


def _scatter_kernel(x, g, *dynamic, shape, strides):
    """The cotangent of `x` for `as_strided(x, shape, strides)` with cotangent `g`."""
    x = np.asarray(x)
    own = _element_offsets(x.shape, x.strides)
    order = np.argsort(own, kind="stable")
    ranked = own[order]
    if ranked.size > 1 and np.any(ranked[1:] == ranked[:-1]):
        raise ValueError("The gradient of as_strided needs an input whose elements do not "
                         "share memory (this one has a stride of 0, as np.broadcast_to "
                         "gives): take `.copy()` of it first.")
    read = _element_offsets(shape, _fill(strides, dynamic))
    at = np.minimum(np.searchsorted(ranked, read), max(ranked.size - 1, 0))
    if read.size and (ranked.size == 0 or np.any(ranked[at] != read)):
        raise ValueError("The gradient of as_strided is defined only where the view reads "
                         "elements of its input; this one reads memory between or beyond "
                         "them (the input is a slice or the strides leave it). Take the view "
                         "of a contiguous array, or use sliding_window_view.")
    out = np.zeros(x.size, dtype=np.result_type(g))
    np.add.at(out, order[at], np.ravel(g))
    return out.reshape(x.shape)


def _as_strided_grad(rec, cts):
    x, *dynamic = rec.inputs
    g = bind(AS_STRIDED_GRAD, x, cts[0], *dynamic, shape=rec.attrs["shape"],
             strides=rec.attrs["strides"])
    return [g] + [None] * len(dynamic)


AS_STRIDED = OpDef("as_strided", _as_strided_kernel, _as_strided_rule, reads_layout=True,
                   grad=_as_strided_grad)
AS_STRIDED_GRAD = OpDef("as_strided_grad", _scatter_kernel,
                        lambda op, ins, attrs: [(tuple(ins[0].shape), ins[1].dtype)],
                        reads_layout=True, layout="C")
for _op in (STRIDE, AS_STRIDED, AS_STRIDED_GRAD):
    OPS[_op.name] = _op


# -- where the layout is known -------------------------------------------------------------
def _getitem_layout(node) -> str:
    """Basic indexing is a view (laid out from its input); advanced indexing is left
    unknown (NumPy's result order depends on where the index arrays sit)."""
    out = node.outputs[0]
    return "numpy" if is_basic_index(node.attrs["index"], node.inputs[1:], out.ndim) else ""


GETITEM.layout = _getitem_layout


def _origin(node) -> str:
    o = node.origin
    return f" (line {o.lineno})" if o is not None else ""


def _constant_known(graph, value) -> bool:
    """A constant array the trace read: its snapshot is a C-ordered copy, which lays
    out as the original only when that is C-contiguous."""
    a = np.asarray(value)
    if a.ndim <= 1:
        return a.ndim == 0 or a.flags.c_contiguous
    while graph.parent is not None:
        graph = graph.parent
    for original, copy in graph.snapshots.values():
        if copy is value:
            return bool(original.flags.c_contiguous)
    return bool(a.flags.c_contiguous)


def layout_unknown(x: Tensor) -> str | None:
    """None when the array `x` stands for is laid out as eager NumPy would lay it out
    (see the module docstring), else what makes its layout unknown."""
    stack, seen = [x], set()
    while stack:
        t = stack.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        node = t.node
        if node is None:
            if t.graph.parent is None and any(t is p for p in t.graph.inputs):
                continue
            return ("it is a value handed into a nested graph (a symbolic `if` / loop "
                    "body, or a vmap's example), whose layout is whatever the caller or the "
                    "path taken made")
        kind = node.op.layout(node) if callable(node.op.layout) else node.op.layout
        if kind == "C":
            continue
        if kind != "numpy":
            return f"it was made by `{node.op.name}`{_origin(node)}, whose result's layout " \
                   "the graph does not track"
        for v in node.inputs:
            if isinstance(v, Tensor):
                if v.ndim > 0:
                    stack.append(v)
            elif isinstance(v, np.ndarray) and not _constant_known(t.graph, v):
                return (f"it was computed{_origin(node)} from a constant array that is not "
                        "C-contiguous")
    return None


def _refuse(what: str, reason: str, error=TypeError) -> Exception:
    return error(
        f"{what} of a symbolic array{where()} needs its memory layout, and the graph does not "
        f"know it: {reason}. Take it of an argument (or of a slice or transpose of one), "
        "make the array C-ordered first (`np.ascontiguousarray(x)`), or use "
        "np.lib.stride_tricks.sliding_window_view for windows.")


# -- x.strides -----------------------------------------------------------------------------
def _c_strides(shape: tuple, itemsize: int) -> tuple:
    out, step = [], itemsize
    for n in reversed(shape):
        out.append(step)
        step *= max(n, 1)
    return tuple(reversed(out))


def strides_of(x: Tensor) -> tuple:
    """`x.strides` of a symbolic array (see the module docstring)."""
    if not isinstance(x, Tensor):  # an eager tape's value: the array it holds
        return np.asarray(x.value).strides
    if tracing.current_graph() is None:  # a finished graph's value: nothing runs
        raise AttributeError("x.strides of a graph value outside a trace: it has no array")
    reason = layout_unknown(x)
    if reason is not None:
        raise _refuse("x.strides", reason, AttributeError)
    shape = x.static_shape
    node = x.node
    kind = None if node is None else \
        node.op.layout(node) if callable(node.op.layout) else node.op.layout
    if kind == "C" and None not in shape:
        return _c_strides(shape, x.dtype.itemsize)
    out = []
    for axis in range(len(shape)):
        s = bind(STRIDE, x, axis=axis)
        s.weak = True  # it stands for the Python int NumPy gives
        out.append(s)
    return tuple(out)


LayoutHooks.strides = strides_of


# -- as_strided ----------------------------------------------------------------------------
def _static_shape(shape) -> tuple:
    if isinstance(shape, Tensor) or any(isinstance(n, Tensor) for n in shape):
        raise TypeError(f"as_strided: the shape must be known while tracing{where()} (a "
                        "result's shape is fixed when the graph is built); use Python ints "
                        "or known dimensions (`x.shape[0]` of a known size).")
    return tuple(operator.index(n) for n in shape)


def _strides_template(strides) -> tuple[tuple, list]:
    """(template with None for run-time strides, the run-time strides)."""
    if isinstance(strides, Tensor):
        if strides.ndim != 1 or strides.static_shape[0] is None:
            raise TypeError(f"as_strided: strides given as a graph array need a known "
                            f"length{where()}; pass a tuple.")
        strides = [strides[k] for k in range(strides.static_shape[0])]
    template, dynamic = [], []
    for s in strides:
        if isinstance(s, Tensor):
            if s.ndim != 0 or s.dtype.kind not in "iu":
                raise TypeError(f"as_strided: each stride must be an integer{where()}.")
            template.append(None)
            dynamic.append(s)
        else:
            template.append(operator.index(s))
    return tuple(template), dynamic


def as_strided(x, shape=None, strides=None, subok=False, writeable=True):
    """`np.lib.stride_tricks.as_strided` where `x` or a stride is symbolic."""
    (x,) = resolve_variables([x])
    if not isinstance(x, Tensor):
        x = np.asarray(x)
        if not x.flags.c_contiguous:
            raise _refuse("as_strided", "it is a constant that is not C-contiguous (the "
                          "trace keeps a C-ordered copy)")
    else:
        reason = layout_unknown(x)
        if reason is not None:
            raise _refuse("as_strided", reason)
    shape = tuple(x.shape) if shape is None else _static_shape(shape)
    if strides is None:
        strides = strides_of(x) if isinstance(x, Tensor) else x.strides
    template, dynamic = _strides_template(strides)
    if len(template) != len(shape):
        raise static_error(ValueError, "mismatch in length of strides and shape")
    return bind(AS_STRIDED, x, *dynamic, shape=shape, strides=template,
                writeable=bool(writeable))


def as_strided_call(f, args: tuple, kwargs: dict) -> Any:
    """What converted code calls for `np.lib.stride_tricks.as_strided(...)` while tracing:
    the graph op when an argument is symbolic, NumPy's own function otherwise."""
    def symbolic(v):
        return isinstance(v, Tensor) or (type(v) in (list, tuple) and any(map(symbolic, v)))

    if not any(map(symbolic, args)) and not any(map(symbolic, kwargs.values())):
        return f(*args, **kwargs)
    x = args[0] if args else kwargs.get("x")
    if isinstance(x, Tensor):  # NumPy's protocol path: resolves writes, notes the view
        return x.__array_function__(f, (Tensor,), args, kwargs)
    return as_strided(*args, **kwargs)


TABLE.handlers[as_strided_numpy] = as_strided


# -- np.ascontiguousarray: a C-ordered array (the array itself when it already is one) -----
def _contiguous_rule(op, ins, attrs):
    shape = tuple(ins[0].static_shape)
    return [(shape if shape else (1,), ins[0].dtype)]


def _contiguous_grad(rec, cts):
    x = rec.inputs[0]
    return [cts[0] if np.ndim(x) else np.reshape(cts[0], ())]


ASCONTIGUOUS = OpDef("ascontiguousarray", np.ascontiguousarray, _contiguous_rule,
                     kernel_ref="np.ascontiguousarray", layout="C", grad=_contiguous_grad)
OPS[ASCONTIGUOUS.name] = ASCONTIGUOUS
_asarray_handler = TABLE.handlers[np.ascontiguousarray]


def ascontiguousarray(a, dtype=None, *, like=None):
    """A graph value: `a` itself at run time when it is C-contiguous, else a C-ordered
    copy, as NumPy gives; which of the two is a matter of layout, so a write through one
    into the other is refused (runtime/state/view_recipes.py, "layout")."""
    if not isinstance(a, Tensor):
        return _asarray_handler(a, dtype)
    x = a if dtype is None or np.dtype(dtype) == a.dtype else np.astype(a, dtype)
    out = bind(ASCONTIGUOUS, x)
    return TensorProtocol.after_function(np.ascontiguousarray, (x,), {}, out) \
        if x is a else out


TABLE.handlers[np.ascontiguousarray] = ascontiguousarray
