"""The graph verifier: structural invariants every pass must preserve.

- every Tensor input of a node is defined earlier in the same graph (an input or an
  output of an earlier node) — subgraphs see only their own inputs;
- each node's outputs belong to it and to this graph, and names are unique;
- control-flow subgraphs have the input/output counts their node implies.
"""
from __future__ import annotations

from runtime.core.tensor import Tensor


class VerificationError(AssertionError):
    """A graph broke an IR invariant (a bug in a pass or in tracing, never in user code)."""


def verify(graph) -> None:
    names: set[str] = set()
    _verify(graph, names)


def _verify(graph, names: set) -> None:
    defined: set[int] = set()
    for t in graph.inputs:
        _check(t.graph is graph, f"input {t.name} belongs to another graph", graph)
        _define(t, defined, names, graph)
    for node in graph.nodes:
        for x in node.inputs:
            if isinstance(x, Tensor):
                _check(id(x) in defined, f"{node.op.name} uses {x.name} before it is defined "
                       "(or from another graph)", graph)
        for i, o in enumerate(node.outputs):
            _check(o.node is node and o.index == i and o.graph is graph,
                   f"output {o.name} of {node.op.name} is not linked to its node", graph)
            _define(o, defined, names, graph)
        _verify_control_flow(node)
        for sub in node.subgraphs():
            _check(sub.parent is graph, f"subgraph {sub.name} has the wrong parent", graph)
            _verify(sub, names)
    for x in graph.outputs:
        if isinstance(x, Tensor):
            _check(id(x) in defined, f"output {x.name} is not defined in the graph", graph)


def _verify_control_flow(node) -> None:
    """A control-flow node's own structure check (its op's `check` hook), shared with
    the loader of saved graphs."""
    if node.op.check is None:
        return

    def fail(message: str) -> None:
        _check(False, message, node.subgraphs()[0])

    node.op.check(node.inputs, node.attrs, [(o.static_shape, o.dtype) for o in node.outputs], fail)


def _define(t, defined, names, graph) -> None:
    _check(t.name not in names, f"the name {t.name} is defined twice", graph)
    names.add(t.name)
    defined.add(id(t))


def _check(ok: bool, message: str, graph) -> None:
    if not ok:
        raise VerificationError(f"graph {graph.name}: {message}")
