"""Graph surgery shared by the passes: cloning and replacing uses of a value."""
from __future__ import annotations

from runtime.core.graph import Graph, Node
from runtime.core.tensor import Tensor
from runtime.core.tensor_map import TensorMap


def clone(graph: Graph, parent: Graph | None = None, mapping: dict | None = None) -> tuple[Graph, dict]:
    """A deep copy of `graph` (subgraphs too); returns (copy, {id(old): new})."""
    mapping = {} if mapping is None else mapping
    new = Graph(graph.name, parent)
    new._counter = graph._counter if parent is None else parent._counter
    new.labels = graph.labels if parent is None else parent.labels
    if parent is None:  # the traced graph, whose statements name values (core/naming.py)
        new.named_from = getattr(graph, "named_from", None) or graph

    def copy_value(t: Tensor, node) -> Tensor:
        c = Tensor(new, node, t.index, t.static_shape, t.dtype, t.name, t.weak)
        mapping[id(t)] = c
        return c

    new.inputs = [copy_value(t, None) for t in graph.inputs]
    for outer, inner in graph.captures.items():  # outer values were cloned with the parent
        new.captures[mapping.get(id(outer), outer)] = mapping[id(inner)]
    for node in graph.nodes:
        attrs = {}
        for k, v in node.attrs.items():
            attrs[k] = clone(v, new, mapping)[0] if isinstance(v, Graph) else v
        copy = Node(node.op, [mapping.get(id(x), x) if isinstance(x, Tensor) else x
                              for x in node.inputs], attrs, node.origin)
        copy.outputs = [copy_value(o, copy) for o in node.outputs]
        new.nodes.append(copy)
    new.outputs = [mapping.get(id(x), x) if isinstance(x, Tensor) else x for x in graph.outputs]
    marks = getattr(graph, "operator_results", None)
    if marks:  # 0-d results of Python operators (`d ** t`): the copy spells them the same
        new.operator_results = TensorMap((mapping[id(t)], True) for t in marks
                                         if id(t) in mapping)  # (not values passes dropped)
    return new, mapping


def replace_uses(graph: Graph, replacements: dict) -> None:
    """Substitute values in node inputs and outputs of `graph`: {id(old): new}."""
    if not replacements:
        return

    def sub(x):
        while isinstance(x, Tensor) and id(x) in replacements:
            x = replacements[id(x)]
        return x

    for node in graph.nodes:
        node.inputs = [sub(x) for x in node.inputs]
    graph.outputs = [sub(x) for x in graph.outputs]


def is_pure(node: Node) -> bool:
    """No state, no effect, no subgraph: safe to fold, merge, hoist or drop."""
    return not node.op.stateful and not node.op.effect and not node.subgraphs() \
        and node.op.kernel is not None


def each_graph(graph: Graph):
    """`graph` and all its subgraphs, innermost first."""
    for node in graph.nodes:
        for sub in node.subgraphs():
            yield from each_graph(sub)
    yield graph
