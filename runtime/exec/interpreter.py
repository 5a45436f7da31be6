"""The reference semantics: run a graph node by node with each op's kernel.

Slower than the generated code but obviously right; tests check the two agree.
"""
from __future__ import annotations

from runtime.control_flow import COND, WHILE_LOOP
from runtime.graph import Graph
from runtime.exec.liveness import live_nodes
from runtime.tensor import Tensor


def run_graph(graph: Graph, args: list) -> list:
    """Evaluate `graph` on `args` (one per graph input); returns its output values."""
    env = {id(t): v for t, v in zip(graph.inputs, args)}

    def val(x):
        return env[id(x)] if isinstance(x, Tensor) else x

    for node in live_nodes(graph):
        ins = [val(x) for x in node.inputs]
        if node.op is COND:
            branch = node.attrs["then"] if ins[0] else node.attrs["else_"]
            args = [_copied(v) for v in ins[1:]] if node.attrs.get("copy_lists") else ins[1:]
            outs = run_graph(branch, args)
        elif node.op is WHILE_LOOP:
            outs = _run_while(node, ins)
        else:
            result = node.op.kernel(*ins, **node.attrs)
            outs = [result] if node.op.num_outputs == 1 else list(result or ())
        for o, v in zip(node.outputs, outs):
            env[id(o)] = v
    return [val(x) for x in graph.outputs]


def _run_while(node, ins) -> list:
    n = len(node.outputs)
    limit = ins[-1] if node.attrs["has_max"] else None
    caps = ins[n:len(ins) - (1 if limit is not None else 0)]
    carried, count = [_copied(v) for v in ins[:n]], 0
    while run_graph(node.attrs["cond"], carried + caps)[0]:
        if limit is not None and count >= limit:
            break
        carried = run_graph(node.attrs["body"], carried + caps)
        count += 1
    return carried


def _copied(value):
    """Graph lists entering a branch or loop are copied (see codegen._copy_lists)."""
    return list(value) if type(value) is list else value
