"""Conditional expressions -> `ag__.if_exp`.

    y = a if x > 0 else b      =>   y = ag__.if_exp(x > 0, lambda: a, lambda: b)

Both arms stay lazy (a lambda each); on a symbolic condition they become the two
branches of a `cond` node.
"""
from __future__ import annotations

import gast

from autograph.converters.logical_expressions import as_test
from autograph.pyct import templates, transformer


def _if_exp(node, walk):
    return templates.replace_expr("ag__.if_exp(test, lambda: body, lambda: orelse)",
                                  origin=node, test=as_test(node.test), body=node.body,
                                  orelse=node.orelse)


HANDLERS = {gast.IfExp: _if_exp}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
