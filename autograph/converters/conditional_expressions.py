"""Conditional expressions -> `ag__.if_exp`, behind a Python path for a bool test.

    y = a if x > 0 else b      =>   y = (a if c else b) if (c := x > 0).__class__ is bool
                                         else ag__.if_exp(c, lambda: a, lambda: b)

Both arms of `ag__.if_exp` stay lazy (a lambda each); on a symbolic condition they become
the two branches of a `cond` node. A bool test takes Python's own conditional expression
(dual-path code, `logical_expressions.dual`).
"""
from __future__ import annotations

import gast

from autograph.converters.logical_expressions import (as_test, dual, functional_only,
                                                     rebinds_keyword, rebound_in)
from autograph.pyct import templates, transformer


def _if_exp(node, walk):
    def python(test):
        return gast.IfExp(test=test, body=node.body, orelse=node.orelse)

    rebinds = rebound_in([node.body, node.orelse], walk.ctx)

    def functional(test):
        call = templates.replace_expr(
            "ag__.if_exp(test, lambda: body, lambda: orelse)", origin=node, test=test,
            body=functional_only(templates.clone(node.body)),
            orelse=functional_only(templates.clone(node.orelse)))
        if rebinds:
            call.keywords.append(rebinds_keyword(rebinds))
        return call
    return dual(as_test(node.test), python, functional, node, walk.ctx.namer)


HANDLERS = {gast.IfExp: _if_exp}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
