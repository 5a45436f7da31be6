"""The gradient of an op vmap runs once per example (`vmap_loop[op]`, runtime/ops/
vmap_loop.py): the per-example op's own gradient rule, traced for one example and
batched like any per-example graph (its ops by their batching rules, a loop where there
is none).

    vmap_loop[inv](xs), cotangents g  ->  vmap(lambda x, y, g: inv's rule)(xs, ys, g)

An input the loop does not map gets the sum of its per-example cotangents.
"""
from __future__ import annotations

import numpy as np

from runtime.core import tracing
from runtime.core.graph import Graph
from runtime.core.tensor import Tensor
from runtime.ops import vmap_loop
from runtime.transforms.batching import Batcher


class _PerExampleRecord:
    """The record the per-example op's gradient rule reads: its op, inputs, outputs and
    attributes, for one example."""

    __slots__ = ("op", "inputs", "outputs", "attrs", "origin")

    def __init__(self, op, inputs, outputs, attrs, origin):
        self.op, self.inputs, self.outputs = op, inputs, outputs
        self.attrs, self.origin = attrs, origin


def loop_gradient(rec, cts) -> list:
    held = rec.attrs["held"].node
    inner = held.op
    if inner.grad is None:
        raise NotImplementedError(f"No gradient rule for `{inner.name}` (run per example by "
                                  "vmap); compute it outside the tape.")
    if rec.attrs["masked"]:
        raise NotImplementedError(
            f"vmap runs `{inner.name}` per example inside a batched `if`/`while`; its gradient "
            "there is not supported yet. Differentiate the per-example function and vmap the "
            "gradient (ag.vmap of a function holding the tape) instead.")
    batched = rec.attrs["batched"]
    inputs = list(rec.inputs)
    outer = tracing.current_graph()
    if outer is None:
        raise RuntimeError(f"vmap_loop[{inner.name}] differentiated outside a graph: vmap "
                           "makes these ops only while tracing (an internal error)")
    graph = Graph(f"vmap_grad_{inner.name}", parent=outer)
    example_in = [graph.add_input(tuple(x.shape[1:]), x.dtype) if b else x
                  for x, b in zip(inputs, batched)]
    example_out = [graph.add_input(tuple(o.shape[1:]), o.dtype) for o in rec.outputs]
    example_ct = [graph.add_input(tuple(np.shape(g)[1:]), np.asarray(g).dtype
                                  if not isinstance(g, Tensor) else g.dtype) for g in cts]
    mapped = [t for t, b in zip(example_in, batched) if b] + example_out + example_ct
    with tracing.graph_context(graph):
        example_in = [graph.capture(x) if not b and isinstance(x, Tensor) else x
                      for x, b in zip(example_in, batched)]
        record = _PerExampleRecord(inner, example_in, example_out, held.attrs,
                                   getattr(rec, "origin", None))
        grads = inner.grad(record, example_ct)
        grads = [graph.capture(g) if isinstance(g, Tensor) else g for g in grads]
    produced = [g for g in grads if isinstance(g, Tensor)]
    graph.outputs = produced
    values = [x for x, b in zip(inputs, batched) if b] + list(rec.outputs) + list(cts) + \
        [v for v, _ in graph.captures.items()]
    flags = [True] * len(mapped) + [False] * len(graph.captures)
    graph.inputs = mapped + list(graph.captures.values())
    ref = next(x for x, b in zip(inputs, batched) if b)
    size = ref.shape[0] if isinstance(ref, Tensor) else len(ref)
    batcher = Batcher(size, ref)
    outs, out_flags = batcher.run(graph, values, flags)
    by_tensor = {id(t): (v, f) for t, v, f in zip(produced, outs, out_flags)}
    result = []
    for g, b in zip(grads, batched):
        if g is None:
            result.append(None)
            continue
        v, f = by_tensor[id(g)] if isinstance(g, Tensor) else (g, False)
        if not f:
            v = batcher.broadcast(v)
        result.append(v if b else np.sum(v, axis=0))
    return result


vmap_loop.set_gradient_rule(loop_gradient)
