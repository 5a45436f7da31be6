"""Reads of variables that may be undefined -> `ag__.ld(name)`.

    if c:                         if c:
        y = 1               =>        y = 1
    print(y)                      print(ag__.ld(y))

After conversion a variable defined on only some paths may hold `ag__.Undefined`; `ld`
raises UnboundLocalError for it, as Python would. Only reads that the reaching-
definitions analysis (`pyct/dataflow.py`) flagged are wrapped, so ordinary code is
unchanged.
"""
from __future__ import annotations

import gast

from autograph.pyct import anno, templates, transformer


def _name(node, walk):
    if anno.get(node, anno.MAYBE_UNDEFINED, False):
        return templates.replace_expr("ag__.ld(name)", origin=node, name=node)
    return node


HANDLERS = {gast.Name: _name}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
