"""The reference semantics: run a graph node by node with each op's kernel.

Slower than the generated code but obviously right; tests check the two agree.
Control-flow ops have no kernel: their `run` hooks (`run_cond`, `run_while`, below)
run their subgraphs with `run_graph`; this module attaches them to the COND and
WHILE_LOOP records when it loads (runtime/exec/__init__.py imports it).
"""
from __future__ import annotations

import threading

import numpy as np

from runtime.control_flow.cond import COND
from runtime.control_flow.while_loop import WHILE_LOOP
from runtime.control_flow.try_op import _CAUGHT, TRY
from runtime.core.graph import Graph, Node
from runtime.core.liveness import live_nodes
from runtime.core.tensor import Tensor


class _Applying(threading.local):
    # per thread: how a node without subgraphs runs instead of its kernel (set while an
    # eager GradientTape records a compiled function's call: tape_calls.py)
    node = None


applying = _Applying()


def run_graph(graph: Graph, args: list) -> list:
    """Evaluate `graph` on `args` (one per graph input); returns its output values."""
    env = {id(t): v for t, v in zip(graph.inputs, args)}
    apply = applying.node

    def val(x):
        return env[id(x)] if isinstance(x, Tensor) else x

    for node in live_nodes(graph):
        ins = [val(x) for x in node.inputs]
        if node.op.run is not None:  # control flow (run_cond, run_while below)
            outs = node.op.run(node, ins)
        elif apply is not None:
            outs = apply(node, ins)
        else:
            result = node.op.kernel(*ins, **node.attrs)
            outs = [result] if node.op.num_outputs == 1 else list(result or ())
        for o, v in zip(node.outputs, outs):
            env[id(o)] = v
    return [val(x) for x in graph.outputs]


def _copied(value):
    """Graph lists entering a branch or loop are copied (see control_emit._copy_lists)."""
    return list(value) if type(value) is list else value


def run_cond(node: Node, ins: list) -> list:
    branch = node.attrs["then"] if ins[0] else node.attrs["else_"]
    args = [_copied(v) for v in ins[1:]] if node.attrs.get("copy_lists") else ins[1:]
    return run_graph(branch, args)


def run_while(node: Node, ins: list) -> list:
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


def run_try(node: Node, ins: list) -> list:
    n_out = node.attrs["n_out"]
    errstate = node.attrs.get("errstate")
    if errstate is not None:  # an errstate region
        with np.errstate(**dict(errstate)):
            return run_graph(node.attrs["body"], ins)[:n_out]
    try:
        return run_graph(node.attrs["body"], ins)[:n_out]
    except BaseException as exc:  # noqa: BLE001 - handed to the matching handler
        for i in range(node.attrs["n_handlers"]):
            kinds = node.attrs[f"kinds_{i}"] or (BaseException,)
            if isinstance(exc, kinds):
                _CAUGHT.values[node.attrs[f"var_{i}"]] = exc
                return run_graph(node.attrs[f"except_{i}"], ins)[:n_out]
        raise


COND.run = run_cond
TRY.run = run_try
WHILE_LOOP.run = run_while
