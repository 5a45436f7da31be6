"""`assert` -> `ag__.assert_stmt` (a graph assertion when the test is symbolic).

    assert x > 0, "bad x"    =>    ag__.assert_stmt(x > 0, lambda: "bad x")

The message stays lazy, as in Python.
"""
from __future__ import annotations

import gast

from autograph.pyct import templates, transformer


def _assert(node, walk):
    if node.msg is None:
        return templates.replace("ag__.assert_stmt(test)", origin=node, test=node.test)
    return templates.replace("ag__.assert_stmt(test, lambda: msg)", origin=node,
                             test=node.test, msg=node.msg)


HANDLERS = {gast.Assert: _assert}


def transform(fn_node, ctx) -> None:
    transformer.apply(fn_node, ctx, HANDLERS)
