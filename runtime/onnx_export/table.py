"""The export table: graph op name -> converter, filled by the op-family modules
(which the package `__init__` imports).

A converter is `fn(em: Emitter, node) -> list[str]`: it emits ONNX nodes for one graph
node and returns one ONNX value name per node output. Ops are looked up by name
(`node.op.name`), never by object identity, so the table does not depend on how op
records are built. A converter shared by several ops is registered once per op with
that op's own parameters (`converter_each`), so no converter branches on the op's name.

`convert_nodes` emits a graph's live nodes through the table (model.py for the top
graph, control.py for branches and loop bodies); `used_variables` and
`assigned_variables` list the Variables a graph reads or updates.
"""
from __future__ import annotations

import functools
from typing import Callable

import numpy as np

from runtime.core.liveness import live_nodes
from runtime.onnx_export.context import Emitter

CONVERTERS: dict[str, Callable] = {}

# Ops that exist in graphs but have no ONNX form, with the reason given to the user.
NO_ONNX_FORM: dict[str, str] = {
    "print": "ag.print writes to stdout; ONNX graphs have no output stream. Remove the "
             "ag.print calls (or return the values) before exporting",
    "list_zeros": "gradient bookkeeping (zeros shaped like a graph list) has no ONNX form; "
                  "export the forward function",
}
_RANDOM = ("a random draw calls a NumPy generator (its state lives in Python) each time the "
           "graph runs; ONNX has no such generator. Draw the numbers outside the function "
           "and pass them in as an argument before exporting")
NO_ONNX_FORM.update(dict.fromkeys(("random_draw", "random_make", "random_call"), _RANDOM))


def converter(*names: str):
    def deco(fn):
        for name in names:
            CONVERTERS[name] = fn
        return fn
    return deco


def converter_each(params: dict[str, dict]):
    """Register the decorated converter under each op name of `params`, bound to that
    op's keyword arguments: `@converter_each({"argmax": {"onnx_op": "ArgMax"}, ...})`."""
    def deco(fn):
        for name, kwargs in params.items():
            CONVERTERS[name] = functools.partial(fn, **kwargs)
        return fn
    return deco


def convert_nodes(em: Emitter, graph, outputs=None) -> None:
    """Emit every live node of `graph` (values of `graph.inputs` already bound in `em`)."""
    for node in live_nodes(graph, outputs):
        em.node = node
        name = node.op.name
        if name in NO_ONNX_FORM:
            raise em.error(NO_ONNX_FORM[name])
        fn = CONVERTERS.get(name)
        if fn is None and isinstance(node.op.kernel, np.ufunc):
            fn = CONVERTERS["__ufunc__"]
        if fn is None:
            raise em.error("no ONNX conversion is known for this op")
        outs = fn(em, node)
        if len(outs) != len(node.outputs):
            raise em.error(f"converter gave {len(outs)} outputs for {len(node.outputs)}")
        for t, o in zip(node.outputs, outs):
            em.bind(t, o)
        em.node = None


def used_variables(graph) -> list:
    """The Variables `graph` (or a subgraph) reads or assigns, in first-use order."""
    found: dict[int, object] = {}
    for node in graph.walk():
        if node.op.stateful and "var" in node.attrs:  # a Variable's read or update
            found.setdefault(id(node.attrs["var"]), node.attrs["var"])
    return list(found.values())


def assigned_variables(graph) -> list:
    found: dict[int, object] = {}
    for node in graph.walk():
        if node.op.effect and "var" in node.attrs:  # an update of a Variable
            found.setdefault(id(node.attrs["var"]), node.attrs["var"])
    return list(found.values())
