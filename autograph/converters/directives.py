"""`ag.set_loop_options(...)` as the first statement of a loop body -> loop options.

    while i < n:                                       (the call is removed and the
        ag.set_loop_options(maximum_iterations=10) =>   loop gets
        ...                                             ag__.while_stmt(..., maximum_iterations=10))

`shape_invariants=[(x, (None, 3))]` names loop variables; it becomes
`shape_invariants={'x': (None, 3)}` so the loop operator can match it to its variables.
Called anywhere else, `set_loop_options` is a no-op function.
"""
from __future__ import annotations

import gast

from autograph.errors import ConversionError
from autograph.pyct import anno, templates
from autograph.pyct.activity import qualified_name

_KNOWN = ("maximum_iterations", "shape_invariants")


def _is_directive(stmt) -> bool:
    if not (isinstance(stmt, gast.Expr) and isinstance(stmt.value, gast.Call)):
        return False
    f = stmt.value.func
    name = f.attr if isinstance(f, gast.Attribute) else getattr(f, "id", None)
    return name == "set_loop_options"


def transform(fn_node, ctx) -> None:
    for node in gast.walk(fn_node):
        if isinstance(node, (gast.For, gast.While)) and node.body and _is_directive(node.body[0]):
            call = node.body[0].value
            options = {}
            for kw in call.keywords:
                if kw.arg not in _KNOWN:
                    raise ConversionError(
                        f"set_loop_options() got an unknown option {kw.arg!r}; it accepts "
                        f"{', '.join(_KNOWN)}", ctx.info.filename, call.lineno)
                options[kw.arg] = kw.value
            if call.args:
                raise ConversionError("set_loop_options() takes keyword arguments only",
                                      ctx.info.filename, call.lineno)
            if "shape_invariants" in options:
                options["shape_invariants"] = _invariants(options["shape_invariants"], ctx)
            anno.set_(node, anno.LOOP_OPTIONS, options)
            node.body = node.body[1:] or [gast.copy_location(gast.Pass(), node.body[0])]


def _invariants(value, ctx):
    if not isinstance(value, (gast.List, gast.Tuple)):
        raise ConversionError("shape_invariants must be a list of (variable, shape) pairs "
                              "written out in the call", ctx.info.filename, value.lineno)
    keys, values = [], []
    for pair in value.elts:
        name = qualified_name(pair.elts[0]) if isinstance(pair, gast.Tuple) and \
            len(pair.elts) == 2 else None
        if name is None:
            raise ConversionError("each shape_invariants entry must be (variable, shape), "
                                  "e.g. (x, (None, 3))", ctx.info.filename, value.lineno)
        keys.append(gast.Constant(value=name, kind=None))
        values.append(pair.elts[1])
    out = gast.Dict(keys=keys, values=values)
    return templates.copy_location(out, value)
