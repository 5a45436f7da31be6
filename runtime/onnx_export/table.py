"""The export table: graph op name -> converter, filled by the op-family modules.

A converter is `fn(em: Emitter, node) -> list[str]`: it emits ONNX nodes for one graph
node and returns one ONNX value name per node output. Ops are looked up by name
(`node.op.name`), never by object identity, so the table does not depend on how op
records are built.
"""
from __future__ import annotations

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
