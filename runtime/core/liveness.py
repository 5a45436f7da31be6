"""Which nodes must run: those whose outputs reach a graph output or a side effect.

This is what makes execution non-strict: an unused op that would fail never runs.
"""
from __future__ import annotations

from runtime.core.graph import Graph, Node
from runtime.core.tensor import Tensor


def live_nodes(graph: Graph, outputs=None) -> list[Node]:
    """Nodes of `graph` (in program order) needed for `outputs` (default graph.outputs)."""
    needed: set[int] = set()
    for x in graph.outputs if outputs is None else outputs:
        if isinstance(x, Tensor):
            needed.add(id(x))
    keep = []
    for node in reversed(graph.nodes):
        if node.has_effects or any(id(o) in needed for o in node.outputs):
            keep.append(node)
            for x in node.inputs:
                if isinstance(x, Tensor):
                    needed.add(id(x))
    keep.reverse()
    return keep
