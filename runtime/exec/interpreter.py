"""The reference semantics: run a graph node by node with each op's kernel.

Slower than the generated code but obviously right; tests check the two agree.
"""
from __future__ import annotations

from runtime.core.graph import Graph
from runtime.core.liveness import live_nodes
from runtime.core.tensor import Tensor


def run_graph(graph: Graph, args: list) -> list:
    """Evaluate `graph` on `args` (one per graph input); returns its output values."""
    env = {id(t): v for t, v in zip(graph.inputs, args)}

    def val(x):
        return env[id(x)] if isinstance(x, Tensor) else x

    for node in live_nodes(graph):
        ins = [val(x) for x in node.inputs]
        if node.op.run is not None:  # control flow (runtime/control_flow/hooks.py)
            outs = node.op.run(node, ins)
        else:
            result = node.op.kernel(*ins, **node.attrs)
            outs = [result] if node.op.num_outputs == 1 else list(result or ())
        for o, v in zip(node.outputs, outs):
            env[id(o)] = v
    return [val(x) for x in graph.outputs]

