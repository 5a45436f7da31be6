"""Constant folding: evaluate pure ops whose inputs are all constants, once.

    before:  v1 = multiply(c, 2.0)     # c a constant array
    after:   (uses of v1 read the precomputed array)

Results larger than `MAX_FOLDED_ELEMENTS` are left in the graph: folding them would
trade a cheap op for a large constant kept alive by the compiled function.
"""
from __future__ import annotations

import warnings

import numpy as np

from runtime.graph import Graph
from runtime.passes.rewrite import each_graph, is_pure, replace_uses
from runtime.tensor import Tensor

MAX_FOLDED_ELEMENTS = 1 << 16


def fold_constants(graph: Graph) -> bool:
    changed = False
    for g in each_graph(graph):
        replacements = {}
        keep = []
        for node in g.nodes:
            if not any(isinstance(x, Tensor) for x in node.inputs) \
                    and is_pure(node) and _fits(node):
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


def _fits(node) -> bool:
    return all(o.size is not None and o.size <= MAX_FOLDED_ELEMENTS for o in node.outputs)


def _evaluate(node):
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            result = node.op.kernel(*node.inputs, **node.attrs)
    except Exception:
        return None  # leave it: it raises at run time, exactly where it did before
    results = [result] if node.op.num_outputs == 1 else list(result)
    out = []
    for o, r in zip(node.outputs, results):
        arr = np.asarray(r)
        if arr.dtype != o.dtype or arr.shape != o.shape:
            return None
        out.append(arr[()] if arr.ndim == 0 else _readonly(arr))
    return out


def _readonly(arr: np.ndarray) -> np.ndarray:
    arr = arr.copy()
    arr.flags.writeable = False  # shared by every call: nobody may write into it
    return arr
