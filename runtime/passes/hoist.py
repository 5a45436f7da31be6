"""Loop-invariant code motion: compute in front of a loop what no iteration changes.

    before:  while i < n:            after:  v9 = exp(w)
                 v2 = exp(w)                  while i < n:
                 s = s + v2 * i                   s = s + v9 * i

Only elementwise ufuncs and matmul on fully known shapes move: they cannot raise on the
values they get, so running one before a loop that does zero iterations changes nothing
but time.
"""
from __future__ import annotations

import numpy as np

from runtime.control_flow import WHILE_LOOP
from runtime.graph import Graph, Node
from runtime.passes.rewrite import each_graph, is_pure, replace_uses
from runtime.tensor import Tensor


def _movable(node: Node) -> bool:
    if not (is_pure(node) and isinstance(node.op.kernel, np.ufunc)):
        return False
    # integer ** negative integer raises in NumPy: keep it where it was
    if node.op.kernel is np.power and node.outputs[0].dtype.kind in "iu":
        return False
    # with unknown dims a broadcast could fail at run time, in a loop that may not run
    return all(None not in x.shape for x in node.inputs if isinstance(x, Tensor))


def hoist_loop_invariants(graph: Graph) -> bool:
    changed = False
    for g in list(each_graph(graph)):
        for node in list(g.nodes):
            if node.op is WHILE_LOOP:
                changed |= _hoist_from(g, node)
    return changed


def _hoist_from(outer: Graph, loop: Node) -> bool:
    body, cond = loop.attrs["body"], loop.attrs["cond"]
    n_vars = len(loop.outputs)
    has_max = loop.attrs["has_max"]
    # body placeholders for captures -> the outer values the loop passes in
    n_pass = len(loop.inputs) - (1 if has_max else 0)
    outer_of = {id(ph): loop.inputs[i] for i, ph in enumerate(body.inputs) if i >= n_vars and i < n_pass}
    moved = False
    for node in list(body.nodes):
        if not _movable(node):
            continue
        if not all(not isinstance(x, Tensor) or id(x) in outer_of for x in node.inputs):
            continue
        # Rebuild the node in the outer graph, just before the loop.
        inputs = [outer_of[id(x)] if isinstance(x, Tensor) else x for x in node.inputs]
        hoisted = Node(node.op, inputs, dict(node.attrs), node.origin)
        hoisted.outputs = [Tensor(outer, hoisted, i, o.shape, o.dtype, outer.fresh_name())
                           for i, o in enumerate(node.outputs)]
        outer.nodes.insert(outer.nodes.index(loop), hoisted)
        replacements = {}
        for o, h in zip(node.outputs, hoisted.outputs):
            ph_body = _add_capture(body, h, n_pass)
            _add_capture(cond, h, n_pass)
            loop.inputs.insert(n_pass, h)
            n_pass += 1
            outer_of[id(ph_body)] = h
            replacements[id(o)] = ph_body
        body.nodes.remove(node)
        replace_uses(body, replacements)
        moved = True
    return moved


def _add_capture(sub: Graph, outer_value: Tensor, position: int) -> Tensor:
    ph = Tensor(sub, None, 0, outer_value.shape, outer_value.dtype, sub.fresh_name("c"))
    sub.inputs.insert(position, ph)
    sub.captures[outer_value] = ph
    return ph
