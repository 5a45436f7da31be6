"""Algebraic simplification, only where NumPy gives bitwise the same result.

    x * 1 → x (not complex)   x / 1 → x (floats)   x - (+0) → x   x + 0 → x (integers, bools)
    (the 0 or 1 may be a scalar, a constant array of that value that broadcasts to x's
    shape, or `zeros_like(z)` / `ones_like(z)`: `zeros_like(z) + y → y` on integers only)
    x - x → zeros (integers)              astype(x, x.dtype) → x
    b != 0 → b (booleans)                 a + python_number(y) → a + y (a typed as y)
    x @ I → x, I @ x → x (integers, bools: exact; on floats -0.0 and inf would change)
    reshape(x, x.shape) → x               transpose(transpose(x, p), q) → transpose(x, p∘q)
    x[...] = v (a copy of x with every element set) → v, when v is a ufunc's result of
    x's shape and dtype read nowhere else (`np.add(x, 1, out=x)`: the sum itself)

Never where dtype or shape would change (broadcasting, promotion), never `x + 0.0` on
floats (-0.0 + 0.0 is +0.0), never `x - (-0.0)` (it is `x + 0.0`), never `x * 1` on
complex numbers (NumPy's complex product gives `(inf+0j) * 1 == inf+nanj` and
`(1-0j) * 1 == 1+0j`), never `x - x` on floats (inf - inf is nan), and never for a value
a graph or subgraph returns (the caller gets a fresh array, as eagerly). Every rule is
checked bitwise against NumPy on signed zeros, NaN, infinities and integer extremes for
every dtype (tests/runtime/test_fidelity_passes.py). Graphs that read memory layout
(`memory_order.py`: `x.strides`, as_strided) are left as they are.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph, Node
from runtime.core.rewrite import each_graph, replace_uses
from runtime.core.tensor import Tensor
from runtime.ops.ufuncs import PYTHON_NUMBER
from runtime.passes.memory_order import reads_memory_order


_FILLS = {"zeros_like": 0, "ones_like": 1}


def _is_scalar(v, value) -> bool:
    """Every element of `v` equals `value`: a scalar, a constant array (the callers check
    that the other operand alone gives the result's shape and dtype), or the result of
    `zeros_like`/`ones_like` (no `fill_value`)."""
    if isinstance(v, Tensor):
        node = v.node
        return node is not None and _FILLS.get(node.op.name) == value and len(node.inputs) == 1 \
            and set(node.attrs) <= {"dtype"} and v.dtype.kind in "biuf"
    if isinstance(v, (list, tuple)):
        return False
    try:
        arr = np.asarray(v)
    except Exception:
        return False
    return arr.dtype.kind in "biuf" and arr.size > 0 and bool(np.all(arr == value))


def _is_plus_zero(v) -> bool:
    """Zeros without a sign bit: `x - (-0.0)` is `x + 0.0`, which turns -0.0 into +0.0."""
    return _is_scalar(v, 0) and not (np.asarray(v).dtype.kind == "f" and np.signbit(v).any()) \
        if not isinstance(v, Tensor) else _is_scalar(v, 0)


def _is_identity(v, dtype) -> bool:
    """A constant identity matrix of `dtype` (so the product keeps the other's dtype)."""
    return isinstance(v, np.ndarray) and v.ndim == 2 and v.shape[0] == v.shape[1] \
        and v.dtype == dtype and np.array_equal(v, np.eye(v.shape[0], dtype=dtype))


def _same_aval(a, out: Tensor) -> bool:
    return isinstance(a, Tensor) and a.dtype == out.dtype and a.shape == out.shape \
        and None not in a.shape


def _mul_one(node, ins, out):
    if len(ins) == 2 and out.dtype.kind in "biuf":
        for a, b in (ins, ins[::-1]):
            if _same_aval(a, out) and _is_scalar(b, 1):
                return a
    return None


def _div_one(node, ins, out):
    if _same_aval(ins[0], out) and out.dtype.kind == "f" and _is_scalar(ins[1], 1):
        return ins[0]
    return None


def _sub(node, ins, out):
    if _same_aval(ins[0], out) and _is_plus_zero(ins[1]):
        return ins[0]
    if ins[0] is ins[1] and out.dtype.kind in "iu" and None not in out.shape:
        zeros = np.zeros(out.shape, out.dtype)
        return zeros[()] if zeros.ndim == 0 else zeros
    return None


def _add_zero(node, ins, out):
    if out.dtype.kind in "iub":
        for a, b in (ins, ins[::-1]):
            if _same_aval(a, out) and _is_scalar(b, 0):
                return a
    return None


def _bool_not_zero(node, ins, out):
    """`b != 0` of booleans is `b` (how a truth test of a boolean is traced)."""
    if len(ins) == 2 and out.dtype.kind == "b":
        for a, b in (ins, ins[::-1]):
            if _same_aval(a, out) and not isinstance(b, Tensor) and _is_scalar(b, 0) \
                    and np.ndim(b) == 0:
                return a
    return None


def _matmul_identity(node, ins, out):
    if len(ins) == 2 and out.dtype.kind in "iub":
        for a, b in (ins, ins[::-1]):
            if _same_aval(a, out) and _is_identity(b, out.dtype):
                return a
    return None


def _same_value(node, ins, out):
    return ins[0] if _same_aval(ins[0], out) else None


def _transpose(node, ins, out):
    if _same_aval(ins[0], out) and ins[0].ndim <= 1:
        return ins[0]
    if isinstance(ins[0], Tensor) and ins[0].node is not None \
            and ins[0].node.op is node.op and _same_aval(ins[0].node.inputs[0], out):
        inner = ins[0].node  # a transpose of a transpose
        n = out.ndim
        p = inner.attrs.get("axes") or tuple(reversed(range(n)))
        q = node.attrs.get("axes") or tuple(reversed(range(n)))
        if tuple(p[i] for i in q) == tuple(range(n)):
            return inner.inputs[0]
    return None


# op name -> (rewrite, whether it applies to nodes with attributes): one rule per op
_REWRITES = {"multiply": (_mul_one, False), "true_divide": (_div_one, False),
             "divide": (_div_one, False), "subtract": (_sub, False), "add": (_add_zero, False),
             "not_equal": (_bool_not_zero, False),
             "matmul": (_matmul_identity, False), "astype": (_same_value, True),
             "reshape": (_same_value, True), "transpose": (_transpose, True)}


def _typed_operand(node: Node) -> bool:
    """`a + python_number(y)` → `a + y` when `a` is typed with y's dtype (y 0-d): NumPy
    gives the typed operand's dtype either way (NEP 50: the Python number is weak), and
    y's value is exact in that dtype. Saves converting a loop's number per iteration."""
    if not isinstance(node.op.kernel, np.ufunc) or node.attrs or len(node.inputs) != 2:
        return False
    changed = False
    ins = list(node.inputs)
    for i, (x, other) in enumerate((ins, ins[::-1])):
        inner = x.node if isinstance(x, Tensor) else None
        if inner is None or inner.op.kernel is not PYTHON_NUMBER.kernel or len(inner.inputs) != 1:
            continue
        y = inner.inputs[0]
        if isinstance(y, Tensor) and isinstance(other, Tensor) and not other.weak \
                and y.ndim == 0 and y.dtype == other.dtype and y.dtype.kind in "iuf":
            ins[i] = y
            changed = True
    if changed:
        node.inputs = ins
    return changed


def _rewrite(node: Node):
    """The value that can stand for the node's output, or None."""
    ins, out = node.inputs, node.outputs[0] if node.outputs else None
    rewrite, with_attrs = _REWRITES.get(node.op.name, (None, False))
    if out is None or rewrite is None or node.attrs and not with_attrs:
        return None
    return rewrite(node, ins, out)


def _full_update(node: Node, uses: dict):
    """`index_update(x, v, index=...)` whose result is `v` itself: a fresh ufunc result
    of x's shape and dtype that only this update reads (so even a returned value stays a
    fresh array of its own)."""
    if node.attrs.get("index") is not Ellipsis or node.attrs.get("mode") != "set" \
            or len(node.inputs) != 2 or node.op.emit_in_place is None:
        return None
    v, out = node.inputs[1], node.outputs[0]
    if not _same_aval(v, out) or uses.get(id(v)) != 1 or v.node is None:
        return None
    kernel = v.node.op.kernel
    return v if isinstance(kernel, np.ufunc) and kernel.nout == 1 and v.ndim > 0 else None


def simplify_algebra(graph: Graph) -> bool:
    if reads_memory_order(graph):  # `x * 1 → x` may hand on an array of another layout
        return False
    changed = False
    for g in each_graph(graph):
        # outputs stay fresh arrays: a branch or loop result may be what the caller gets
        protected = {id(x) for x in g.outputs if isinstance(x, Tensor)}
        uses: dict = {}
        for node in g.nodes:
            for x in node.inputs:
                uses[id(x)] = uses.get(id(x), 0) + 1
        for x in g.outputs:
            uses[id(x)] = uses.get(id(x), 0) + 1
        replacements = {}
        keep = []
        for node in g.nodes:
            node.inputs = [replacements.get(id(x), x) if isinstance(x, Tensor) else x
                           for x in node.inputs]
            changed = _typed_operand(node) or changed
            value = None if node.op.stateful or node.subgraphs() else _full_update(node, uses)
            if value is None and not node.op.stateful and not node.subgraphs() and not any(
                    id(o) in protected for o in node.outputs):
                value = _rewrite(node)
            if value is not None:
                replacements[id(node.outputs[0])] = value
                changed = True
                continue
            keep.append(node)
        g.nodes = keep
        replace_uses(g, replacements)
    return changed
