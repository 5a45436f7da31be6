"""Dead-code elimination: drop nodes whose results nothing needs.

    before:  v1 = exp(x); v2 = log(x); return v1
    after:   v1 = exp(x); return v1

Nodes with side effects (print, assign, assert, or subgraphs containing them) stay.
"""
from __future__ import annotations

from runtime.core.graph import Graph
from runtime.core.liveness import live_nodes
from runtime.core.rewrite import each_graph


def eliminate_dead_code(graph: Graph) -> bool:
    changed = False
    for g in each_graph(graph):
        keep = live_nodes(g)
        if len(keep) != len(g.nodes):
            g.nodes = keep
            changed = True
    return changed
