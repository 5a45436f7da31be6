"""Common-subexpression elimination: compute each pure expression once.

    before:  v1 = exp(x); v2 = exp(x); v3 = add(v1, v2)
    after:   v1 = exp(x); v3 = add(v1, v1)

Only pure ops merge (a Variable read or a print never does). Each graph is handled on
its own: a subgraph does not reuse values of its parent except through captures.
"""
from __future__ import annotations

import numpy as np

from runtime.core.graph import Graph
from runtime.core.rewrite import each_graph, is_pure, replace_uses
from runtime.core.tensor import Tensor


def _key(x):
    if isinstance(x, Tensor):
        return ("t", id(x))
    if isinstance(x, np.ndarray):
        return ("a", id(x))
    if isinstance(x, (tuple, list)):
        return (type(x).__name__,) + tuple(_key(v) for v in x)
    if isinstance(x, slice):
        return ("s", _key(x.start), _key(x.stop), _key(x.step))
    if isinstance(x, dict):
        return ("d",) + tuple((k, _key(v)) for k, v in x.items())
    if isinstance(x, (float, complex, np.floating, np.complexfloating)):
        return (type(x).__name__, repr(x))  # by representation: -0.0 is not 0.0
    try:
        hash(x)
    except TypeError:
        return ("o", id(x))
    return (type(x).__name__, x)


def eliminate_common_subexpressions(graph: Graph) -> bool:
    changed = False
    for g in each_graph(graph):
        seen: dict = {}
        replacements: dict = {}
        keep = []
        for node in g.nodes:
            node.inputs = [replacements.get(id(x), x) if isinstance(x, Tensor) else x
                           for x in node.inputs]
            if is_pure(node):
                key = (id(node.op), _key(node.inputs), _key(node.attrs))
                first = seen.get(key)
                if first is not None:
                    for a, b in zip(node.outputs, first.outputs):
                        replacements[id(a)] = b
                    changed = True
                    continue
                seen[key] = node
            keep.append(node)
        g.nodes = keep
        replace_uses(g, replacements)
    return changed
