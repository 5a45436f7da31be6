"""Constant folding: evaluate pure ops whose inputs are all constants, once.

    before:  v1 = multiply(c, 2.0)     # c a constant array
             v2 = ones_like(v0)        # v0: float32[64], computed at run time
    after:   (uses of v1 and v2 read precomputed arrays)

An input the op reads only the shape of (`OpDef.shape_only`: `ones_like(x)`, a gradient's
`broadcast_like(g, x)`) counts as constant when its shape is fully known.

An op that raises, or warns (a floating-point error such as `1.0 / 0.0`, whatever the
`np.errstate` at trace time), is not folded: it stays in the graph, so each call raises or
warns under the caller's `np.errstate`, as the eager code does.

Graphs that read memory layout (`memory_order.py`: `x.strides`, as_strided) are left
as they are: a folded value is kept as a C-ordered copy.

Results larger than `MAX_FOLDED_ELEMENTS` are left in the graph: folding them would
trade a cheap op for a large constant kept alive by the compiled function.
"""
from __future__ import annotations

import warnings

import numpy as np

from runtime.core.graph import Graph
from runtime.core.rewrite import each_graph, is_pure, replace_uses
from runtime.core.tensor import Tensor
from runtime.passes.memory_order import reads_memory_order

MAX_FOLDED_ELEMENTS = 1 << 16


def fold_constants(graph: Graph) -> bool:
    if reads_memory_order(graph):  # a folded value is a C-ordered copy: layouts would change
        return False
    changed = False
    for g in each_graph(graph):
        replacements = {}
        keep = []
        for node in g.nodes:
            if _constant_inputs(node) and is_pure(node) and _fits(node):
                values = _evaluate(node)
                if values is not None:
                    for o, v in zip(node.outputs, values):
                        replacements[id(o)] = v
                    changed = True
                    continue
            node.inputs = [replacements.get(id(x), x) if isinstance(x, Tensor) else x
                           for x in node.inputs]
            keep.append(node)
        g.nodes = keep
        replace_uses(g, replacements)
    return changed


def _constant_inputs(node) -> bool:
    return all(not isinstance(x, Tensor) or
               i in node.op.shape_only and None not in x.shape
               for i, x in enumerate(node.inputs))


def _stand_in(x):
    """A shape-only input's stand-in: zeros of its shape and dtype."""
    return np.zeros(x.shape, x.dtype) if isinstance(x, Tensor) else x


def _fits(node) -> bool:
    return all(o.size is not None and o.size <= MAX_FOLDED_ELEMENTS for o in node.outputs)


def _evaluate(node):
    try:
        with warnings.catch_warnings(), np.errstate(all="raise"):
            warnings.simplefilter("error")
            result = node.op.kernel(*map(_stand_in, node.inputs), **node.attrs)
    except Exception:
        return None  # leave it: it raises or warns at run time, exactly as before
    results = [result] if node.op.num_outputs == 1 else list(result)
    out = []
    for o, r in zip(node.outputs, results):
        arr = np.asarray(r)
        if arr.dtype != o.dtype or arr.shape != o.shape:
            return None
        # a 0-d array stays one (zeros_like of a 0-d array), a NumPy scalar stays a scalar,
        # and a Python number (python_number, path_result) stays one, as at run time
        out.append(r if type(r) in (bool, int, float, complex) else
                   arr[()] if arr.ndim == 0 and not isinstance(r, np.ndarray) else _readonly(arr))
    return out


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = arr.copy()
    arr.flags.writeable = False  # shared by every call: nobody may write into it
    return arr
