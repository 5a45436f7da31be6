"""Inline a conditional whose predicate is a constant: keep only the taken branch.

    before:  v3 = cond(True, x) { then: return exp(x) } { else: return x }
    after:   v3 = exp(x)
"""
from __future__ import annotations

from runtime.core.graph import Graph
from runtime.core.rewrite import each_graph, replace_uses
from runtime.core.tensor import Tensor


def inline_constant_conds(graph: Graph) -> bool:
    changed = False
    for g in list(each_graph(graph)):
        new_nodes = []
        replacements = {}
        for node in g.nodes:
            node.inputs = [replacements.get(id(x), x) if isinstance(x, Tensor) else x
                           for x in node.inputs]
            taken = node.op.taken_branch(node) if node.op.taken_branch is not None else None
            if taken is not None:
                branch, operands = taken
                inner = {id(ph): v for ph, v in zip(branch.inputs, operands)}
                replace_uses(branch, inner)
                for sub_node in branch.nodes:
                    for o in sub_node.outputs:
                        o.graph = g
                    for sub in sub_node.subgraphs():
                        sub.parent = g
                    new_nodes.append(sub_node)
                for o, v in zip(node.outputs, branch.outputs):
                    replacements[id(o)] = v
                changed = True
                continue
            new_nodes.append(node)
        g.nodes = new_nodes
        replace_uses(g, replacements)
    return changed
