"""The export table: graph op name -> converter, filled by the op-family modules.

A converter is `fn(em: Emitter, node) -> list[str]`: it emits ONNX nodes for one graph
node and returns one ONNX value name per node output. Ops are looked up by name
(`node.op.name`), never by object identity, so the table does not depend on how op
records are built. A converter shared by several ops is registered once per op with
that op's own parameters (`converter_each`), so no converter branches on the op's name.
"""
from __future__ import annotations

import functools
from typing import Callable

CONVERTERS: dict[str, Callable] = {}

# Ops that exist in graphs but have no ONNX form, with the reason given to the user.
NO_ONNX_FORM: dict[str, str] = {
    "print": "ag.print writes to stdout; ONNX graphs have no output stream. Remove the "
             "ag.print calls (or return the values) before exporting",
    "list_zeros": "gradient bookkeeping (zeros shaped like a graph list) has no ONNX form; "
                  "export the forward function",
}


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
